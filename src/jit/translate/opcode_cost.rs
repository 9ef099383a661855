//! CLIF instructions per PTX opcode (`ptxjit dump --stats --by-opcode`): while
//! [`collect`] runs a compile on this thread, the dispatcher adds each instruction's
//! count of CLIF instructions, as its lowering emitted them, under its opcode as written
//! (`fma.rn.ftz.f32`, `ld.global.v2.f32`). The block-level clean-ups after translation
//! (register-file store pruning) are not attributed, so the counts sum to somewhat more
//! than the function's CLIF instructions.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// One opcode's share of a compile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpcodeCost {
    /// The opcode with its modifiers as written.
    pub opcode: String,
    /// Translations of instructions with this opcode (an instruction the translator
    /// emits in more than one variant, such as a block's forms for whole and partial
    /// warps, counts once per variant).
    pub count: usize,
    /// CLIF instructions their lowerings emitted.
    pub clif: usize,
}

thread_local! {
    static COSTS: RefCell<Option<BTreeMap<String, (usize, usize)>>> =
        const { RefCell::new(None) };
}

/// Whether a [`collect`] is running on this thread.
pub(crate) fn collecting() -> bool {
    COSTS.with(|c| c.borrow().is_some())
}

/// Adds one instruction of `opcode` that emitted `clif` CLIF instructions.
pub(crate) fn record(opcode: &str, clif: usize) {
    COSTS.with(|c| {
        if let Some(m) = c.borrow_mut().as_mut() {
            let e = m.entry(opcode.to_string()).or_default();
            e.0 += 1;
            e.1 += clif;
        }
    });
}

/// Runs `f` with the counting on; returns its result and the counts, by opcode.
pub(crate) fn collect<T>(f: impl FnOnce() -> T) -> (T, Vec<OpcodeCost>) {
    COSTS.with(|c| *c.borrow_mut() = Some(BTreeMap::new()));
    let r = f();
    let m = COSTS.with(|c| c.borrow_mut().take()).unwrap_or_default();
    let v = m
        .into_iter()
        .map(|(opcode, (count, clif))| OpcodeCost {
            opcode,
            count,
            clif,
        })
        .collect();
    (r, v)
}
