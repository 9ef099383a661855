//! The PTX ISA version and target each modifier or instruction family needs, as ptxas
//! 12.9 checks them (each row checked against ptxas with a module one version or target
//! below): a located error naming the modifier and the requirement. `.bf16` types are
//! checked by `Fx::bf16_target`.

use crate::check::func::Fx;
use crate::ir::Loc;
use crate::parse::ast::Instruction;
use crate::parse::PtxError;

/// One requirement: the feature's name in the error, the PTX version and the target.
struct Req {
    what: String,
    loc: Loc,
    version: (u32, u32),
    sm: u32,
}

/// A target an instruction family needs for some operand types.
struct TypeReq {
    ops: &'static [&'static str],
    types: &'static [&'static str],
    sm: u32,
    /// The feature's name in the error, from the opcode and the type modifier.
    what: fn(&str, &str) -> String,
}

/// Half-precision arithmetic targets. ptxas 12.9: "Feature 'f16 arithmetic and compare
/// instructions' requires .target sm_53 or higher"; "Feature 'add.bf16x2' requires .target
/// sm_90 or higher" (likewise `sub mul setp set` on `.bf16`/`.bf16x2`; `fma neg abs min max`
/// need only sm_80, which `Fx::bf16_target` checks).
const TYPE_REQS: &[TypeReq] = &[
    TypeReq {
        ops: &["add", "sub", "mul", "fma", "neg", "setp"],
        types: &["f16", "f16x2"],
        sm: 53,
        what: |_, t| format!("'.{t}' arithmetic and comparison"),
    },
    TypeReq {
        ops: &["add", "sub", "mul", "setp", "set"],
        types: &["bf16", "bf16x2"],
        sm: 90,
        what: |op, t| format!("'{op}.{t}'"),
    },
];

impl Fx<'_, '_> {
    /// The module's `.target sm_NN` number, if it names one.
    pub(in crate::check) fn target_sm(&self) -> Option<u32> {
        self.cx.m.target.iter().find_map(|t| {
            let d = t.strip_prefix("sm_")?;
            let n = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
            d[..n].parse::<u32>().ok()
        })
    }

    /// The requirements of instruction `i`'s modifiers (ptxas 12.9's errors):
    /// - `ld`/`st` `.L1::evict_*`, `.L1::no_allocate`: PTX 7.4, sm_70 ("Modifier
    ///   '.evict_last' on 'ld' requires PTX ISA .version 7.4", "requires .target sm_70");
    /// - `.L2::64B/128B/256B` prefetch sizes: PTX 7.4, sm_75 ("cache prefetching");
    /// - `.L2::cache_hint`: PTX 7.4, sm_80;
    /// - `cvt` and `fma` `.relu`: PTX 7.0, sm_80 ("Modifier '.relu' requires .target sm_80");
    /// - `fma` `.oob`: PTX 8.1, sm_90;
    /// - `.f16`/`.f16x2` `add sub mul fma neg setp`: sm_53 ("f16 arithmetic and compare
    ///   instructions");
    /// - `.bf16`/`.bf16x2` `add sub mul setp set`: sm_90;
    /// - generic addressing (`ld st atom red` without a state space): PTX 2.0, sm_20.
    fn reqs(&self, i: &Instruction) -> Vec<Req> {
        let op = i.opcode.name.as_str();
        let mut out = Vec::new();
        let mem = matches!(op, "ld" | "st" | "ldu");
        for m in &i.mods {
            let n = m.name.as_str();
            let (version, sm) = match n {
                _ if mem && (n.starts_with("L1::evict_") || n == "L1::no_allocate") => ((7, 4), 70),
                "L2::64B" | "L2::128B" | "L2::256B" => ((7, 4), 75),
                "L2::cache_hint" => ((7, 4), 80),
                "relu" if op == "cvt" || op == "fma" => ((7, 0), 80),
                "oob" if op == "fma" => ((8, 1), 90),
                _ => continue,
            };
            out.push(Req {
                what: format!("'.{n}' on '{op}'"),
                loc: m.loc,
                version,
                sm,
            });
        }
        // ptxas 12.9: "Feature 'generic addressing' requires .target sm_20 or higher" (and
        // "PTX ISA .version 2.0") for `ld`, `st`, `atom` and `red` without a state space.
        let spaces = super::mem::STATE_SPACES;
        if matches!(op, "ld" | "st" | "atom" | "red")
            && !i.mods.iter().any(|m| spaces.contains(&m.name.as_str()))
        {
            out.push(Req {
                what: format!("generic addressing ('{op}' without a state space)"),
                loc: i.opcode.loc,
                version: (2, 0),
                sm: 20,
            });
        }
        for t in TYPE_REQS {
            if !t.ops.contains(&op) {
                continue;
            }
            if let Some(m) = i.mods.iter().find(|m| t.types.contains(&m.name.as_str())) {
                out.push(Req {
                    what: (t.what)(op, &m.name),
                    loc: m.loc,
                    version: (0, 0),
                    sm: t.sm,
                });
            }
        }
        out
    }

    /// A located error for the first requirement the module's `.version` or `.target`
    /// does not meet.
    pub(super) fn feature_reqs(&self, i: &Instruction) -> Result<(), PtxError> {
        let have = self.cx.m.version;
        let sm = self.target_sm();
        for r in self.reqs(i) {
            if have != (0, 0) && have < r.version {
                return Err(self.err(
                    r.loc,
                    format!(
                        "{} requires PTX ISA .version {}.{} or later (this module is {}.{})",
                        r.what, r.version.0, r.version.1, have.0, have.1
                    ),
                ));
            }
            if let Some(s) = sm.filter(|&s| s < r.sm) {
                return Err(self.err(
                    r.loc,
                    format!(
                        "{} requires .target sm_{} or higher (this module targets sm_{s})",
                        r.what, r.sm
                    ),
                ));
            }
        }
        Ok(())
    }
}
