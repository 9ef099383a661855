//! The memory-ordering, scope, cache-operator, eviction-priority, prefetch-size and
//! `.nc` qualifiers of `ld`, `ldu` and `st`, validated as ptxas does. On a CPU only the
//! ordering has an effect: a strong access (`.volatile .relaxed .acquire .release
//! .mmio`) to global or generic memory gets an [`InstKind::OrderPoint`] after it (and a
//! `.release` store one before it); everything else is a hint.
//!
//! [`InstKind::OrderPoint`]: crate::ir::InstKind::OrderPoint

use super::func::Fx;
use super::inst::Mods;
use crate::ir::Space;
use crate::parse::PtxError;

/// Which instruction the qualifiers belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MemOp {
    Ld,
    Ldu,
    St,
}

/// The memory-ordering semantics of an access (`.mmio` is `.relaxed.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sem {
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
}

impl Sem {
    /// Whether the access takes part in synchronisation (needs an order point).
    pub fn strong(self) -> bool {
        self != Sem::Weak
    }
}

const SEMS: &[&str] = &["weak", "volatile", "relaxed", "acquire", "release"];
const SCOPES: &[&str] = &["cta", "cluster", "gpu", "sys"];
const LD_COPS: &[&str] = &["ca", "cg", "cs", "lu", "cv"];
const ST_COPS: &[&str] = &["wb", "cg", "cs", "wt"];
const EVICTIONS: &[&str] = &[
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
];
const PREFETCH_SIZES: &[&str] = &["L2::64B", "L2::128B", "L2::256B"];
/// L2 eviction priorities of 256-bit accesses (sm_100).
const L2_EVICTIONS: &[&str] = &["L2::evict_first", "L2::evict_last", "L2::evict_normal"];

/// What the qualifiers of an access ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemQuals {
    pub sem: Sem,
    /// An `.L2::evict_*` priority, which PTX allows only on 256-bit accesses.
    pub l2_evict: Option<&'static str>,
}

impl Fx<'_, '_> {
    /// Takes every modifier of `m` in `names`, allowing at most one.
    fn at_most_one(
        &self,
        m: &mut Mods,
        names: &[&'static str],
    ) -> Result<Option<&'static str>, PtxError> {
        let mut found: Option<&'static str> = None;
        while let Some((x, loc)) = m.take_if(|x| names.contains(&x)) {
            let x = names.iter().copied().find(|n| *n == x).unwrap_or("");
            if let Some(prev) = found {
                return Err(self.err(
                    loc,
                    format!("'.{x}' cannot be combined with '.{prev}' in '{}'", m.text),
                ));
            }
            found = Some(x);
        }
        Ok(found)
    }

    /// Takes and checks the qualifiers of an `ld`/`ldu`/`st` in state space `space`;
    /// returns the access's ordering semantics and L2 eviction priority.
    pub(super) fn mem_quals(
        &self,
        m: &mut Mods,
        op: MemOp,
        space: Space,
    ) -> Result<MemQuals, PtxError> {
        let (loc, text) = (m.loc, m.text.clone());
        let bad = |what: String| Err(self.err(loc, format!("{what} in '{text}'")));
        let opname = match op {
            MemOp::Ld => "ld",
            MemOp::Ldu => "ldu",
            MemOp::St => "st",
        };
        let sem_name = self.at_most_one(m, SEMS)?;
        let mmio = m.has("mmio");
        let scope = self.at_most_one(m, SCOPES)?;
        let cop = self.at_most_one(m, if op == MemOp::St { ST_COPS } else { LD_COPS })?;
        let nc = op != MemOp::St && m.has("nc");
        let evict = self.at_most_one(m, EVICTIONS)?;
        let l2_evict = self.at_most_one(m, L2_EVICTIONS)?;
        let prefetch = if op == MemOp::St {
            None
        } else {
            self.at_most_one(m, PREFETCH_SIZES)?
        };
        let sem = match sem_name {
            None | Some("weak") => Sem::Weak,
            Some("volatile") => Sem::Volatile,
            Some("relaxed") => Sem::Relaxed,
            Some("acquire") if op == MemOp::Ld => Sem::Acquire,
            Some("release") if op == MemOp::St => Sem::Release,
            Some(x) => return bad(format!("'.{x}' is not a qualifier of '{opname}'")),
        };
        if op == MemOp::Ldu && (sem_name.is_some() || mmio || scope.is_some()) {
            return bad("'ldu' takes no memory ordering".into());
        }
        // ptxas 12.9 rejects every cache qualifier on `ldu` ("Illegal modifier '.cs' for
        // instruction 'ldu'"; the same for `.nc`, eviction priorities and prefetch sizes).
        let cache = cop.or(evict).or(l2_evict).or(prefetch);
        if let Some(x) = cache.or(nc.then_some("nc")).filter(|_| op == MemOp::Ldu) {
            return bad(format!("'.{x}' is not a qualifier of 'ldu'"));
        }
        let ordered = matches!(sem, Sem::Relaxed | Sem::Acquire | Sem::Release);
        match (ordered, scope) {
            (true, None) => {
                return bad(format!(
                    "'.{}' needs a scope (.cta, .cluster, .gpu or .sys)",
                    sem_name.unwrap_or("")
                ))
            }
            (false, Some(s)) => {
                return bad(format!(
                    "scope '.{s}' needs a memory order (.relaxed, .acquire or .release)"
                ))
            }
            _ => {}
        }
        if mmio && (sem != Sem::Relaxed || scope != Some("sys")) {
            return bad("'.mmio' needs '.relaxed.sys'".into());
        }
        if mmio && !matches!(space, Space::Global | Space::Generic) {
            return bad("'.mmio' needs global memory".into());
        }
        if sem.strong()
            && !matches!(
                space,
                Space::Global | Space::Shared | Space::SharedCluster | Space::Generic
            )
        {
            return bad(format!(
                "'.{}' cannot be used with the .{} state space",
                sem_name.unwrap_or("mmio"),
                space.name()
            ));
        }
        if sem.strong() && (cop.is_some() || nc) {
            return bad(format!(
                "'.{}' cannot be combined with a cache operator or '.nc'",
                sem_name.unwrap_or("mmio")
            ));
        }
        if nc && (space != Space::Global || op != MemOp::Ld) {
            return bad("'.nc' needs 'ld.global'".into());
        }
        if nc && matches!(cop, Some("lu" | "cv")) {
            return bad(format!(
                "'.{}' cannot be used with '.nc'",
                cop.unwrap_or("")
            ));
        }
        // ptxas accepts a prefetch size with `.volatile` (`ld.volatile.global.L2::256B`),
        // not with `.mmio`, and no eviction priority with either.
        if evict.is_some() && (sem == Sem::Volatile || mmio) || prefetch.is_some() && mmio {
            return bad("'.volatile' and '.mmio' take no cache qualifiers".into());
        }
        if prefetch.is_some() && !matches!(space, Space::Global | Space::Generic) {
            return bad("a prefetch size needs global memory".into());
        }
        if (evict.is_some() || l2_evict.is_some())
            && !matches!(space, Space::Global | Space::Generic)
        {
            return bad("an eviction priority needs global memory".into());
        }
        if evict.is_some() && cop.is_some() {
            return bad("an eviction priority cannot be combined with a cache operator".into());
        }
        Ok(MemQuals { sem, l2_evict })
    }
}
