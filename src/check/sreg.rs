//! Special registers in the front end: their names, and the types `mov` and `cvt` may
//! read them with (ptxas's rules: `mov` needs the register's own width, except the
//! legacy 16-bit reads of `%tid %ntid %ctaid %nctaid` and 16/32-bit reads of `%gridid`;
//! `cvt` takes any integer source type no wider than the register;
//! `%is_explicit_cluster` is a `.pred` read only by `mov.pred`).

use super::func::Fx;
use super::inst::Mods;
use super::operand::VecElem;
use crate::ir::Fit;
use crate::ir::{Dim, InstKind, LaneMask, Loc, Operand, ReservedSmem, SpecialReg, Type};
use crate::parse::ast::{self, ExprKind, Instruction};
use crate::parse::PtxError;

/// What a special-register name denotes.
pub enum SregName {
    /// A scalar register (`%laneid`).
    Scalar(SpecialReg),
    /// A register with `.x .y .z` components (`.w` reads 0).
    Vector(fn(Dim) -> SpecialReg),
}

/// The special register called `name` (without component), if any.
pub fn lookup(name: &str) -> Option<SregName> {
    use SpecialReg as S;
    use SregName::{Scalar, Vector};
    Some(match name {
        "%tid" => Vector(S::Tid),
        "%ntid" => Vector(S::Ntid),
        "%ctaid" => Vector(S::Ctaid),
        "%nctaid" => Vector(S::Nctaid),
        "%clusterid" => Vector(S::ClusterId),
        "%nclusterid" => Vector(S::NClusterId),
        "%cluster_ctaid" => Vector(S::ClusterCtaId),
        "%cluster_nctaid" => Vector(S::ClusterNCtaId),
        "%laneid" => Scalar(S::LaneId),
        "%warpid" => Scalar(S::WarpId),
        "%nwarpid" => Scalar(S::NWarpId),
        "%clock" => Scalar(S::Clock),
        "%clock_hi" => Scalar(S::ClockHi),
        "%clock64" => Scalar(S::Clock64),
        "%globaltimer" => Scalar(S::GlobalTimer),
        "%globaltimer_lo" => Scalar(S::GlobalTimerLo),
        "%globaltimer_hi" => Scalar(S::GlobalTimerHi),
        "%smid" => Scalar(S::SmId),
        "%nsmid" => Scalar(S::NSmId),
        "%gridid" => Scalar(S::GridId),
        "%lanemask_eq" => Scalar(S::LaneMask(LaneMask::Eq)),
        "%lanemask_le" => Scalar(S::LaneMask(LaneMask::Le)),
        "%lanemask_lt" => Scalar(S::LaneMask(LaneMask::Lt)),
        "%lanemask_ge" => Scalar(S::LaneMask(LaneMask::Ge)),
        "%lanemask_gt" => Scalar(S::LaneMask(LaneMask::Gt)),
        "%dynamic_smem_size" => Scalar(S::DynamicSmemSize),
        "%total_smem_size" => Scalar(S::TotalSmemSize),
        "%aggr_smem_size" => Scalar(S::AggrSmemSize),
        "%cluster_ctarank" => Scalar(S::ClusterCtaRank),
        "%cluster_nctarank" => Scalar(S::ClusterNCtaRank),
        "%is_explicit_cluster" => Scalar(S::IsExplicitCluster),
        "%current_graph_exec" => Scalar(S::CurrentGraphExec),
        "%reserved_smem_offset_begin" => Scalar(S::ReservedSmem(ReservedSmem::Begin)),
        "%reserved_smem_offset_end" => Scalar(S::ReservedSmem(ReservedSmem::End)),
        "%reserved_smem_offset_cap" => Scalar(S::ReservedSmem(ReservedSmem::Cap)),
        "%reserved_smem_offset_0" => Scalar(S::ReservedSmem(ReservedSmem::Offset0)),
        "%reserved_smem_offset_1" => Scalar(S::ReservedSmem(ReservedSmem::Offset1)),
        _ => {
            if let Some(n) = name.strip_prefix("%envreg") {
                return small_index(n, 32).map(|n| Scalar(S::EnvReg(n)));
            }
            let n = name.strip_prefix("%pm")?;
            let (n, wide) = match n.strip_suffix("_64") {
                Some(n) => (n, true),
                None => (n, false),
            };
            return small_index(n, 8).map(|n| Scalar(S::Pm { n, wide }));
        }
    })
}

/// `s` as a decimal number below `limit`, without leading zeros.
fn small_index(s: &str, limit: u8) -> Option<u8> {
    if s.is_empty() || (s.len() > 1 && s.starts_with('0')) || !s.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    s.parse::<u8>().ok().filter(|&n| n < limit)
}

/// The PTX name of a special register (for messages).
pub fn name(s: SpecialReg) -> String {
    use SpecialReg as S;
    let dim = |base: &str, d: Dim| {
        let c = match d {
            Dim::X => 'x',
            Dim::Y => 'y',
            Dim::Z => 'z',
        };
        format!("%{base}.{c}")
    };
    match s {
        S::Tid(d) => dim("tid", d),
        S::Ntid(d) => dim("ntid", d),
        S::Ctaid(d) => dim("ctaid", d),
        S::Nctaid(d) => dim("nctaid", d),
        S::ClusterId(d) => dim("clusterid", d),
        S::NClusterId(d) => dim("nclusterid", d),
        S::ClusterCtaId(d) => dim("cluster_ctaid", d),
        S::ClusterNCtaId(d) => dim("cluster_nctaid", d),
        S::LaneMask(k) => format!("%lanemask_{}", format!("{k:?}").to_lowercase()),
        S::EnvReg(n) => format!("%envreg{n}"),
        S::Pm { n, wide } => format!("%pm{n}{}", if wide { "_64" } else { "" }),
        S::ReservedSmem(r) => {
            let r = match r {
                ReservedSmem::Begin => "begin",
                ReservedSmem::End => "end",
                ReservedSmem::Cap => "cap",
                ReservedSmem::Offset0 => "0",
                ReservedSmem::Offset1 => "1",
            };
            format!("%reserved_smem_offset_{r}")
        }
        S::LaneId => "%laneid".into(),
        S::WarpId => "%warpid".into(),
        S::NWarpId => "%nwarpid".into(),
        S::Clock => "%clock".into(),
        S::ClockHi => "%clock_hi".into(),
        S::Clock64 => "%clock64".into(),
        S::GlobalTimer => "%globaltimer".into(),
        S::GlobalTimerLo => "%globaltimer_lo".into(),
        S::GlobalTimerHi => "%globaltimer_hi".into(),
        S::SmId => "%smid".into(),
        S::NSmId => "%nsmid".into(),
        S::GridId => "%gridid".into(),
        S::DynamicSmemSize => "%dynamic_smem_size".into(),
        S::TotalSmemSize => "%total_smem_size".into(),
        S::AggrSmemSize => "%aggr_smem_size".into(),
        S::ClusterCtaRank => "%cluster_ctarank".into(),
        S::ClusterNCtaRank => "%cluster_nctarank".into(),
        S::IsExplicitCluster => "%is_explicit_cluster".into(),
        S::CurrentGraphExec => "%current_graph_exec".into(),
    }
}

/// Whether `mov.ty` (`cvt == false`) or a `cvt` with source type `ty` may read `s`.
pub fn readable_as(s: SpecialReg, ty: Type, cvt: bool) -> bool {
    if s.bits() == 1 {
        return ty == Type::Pred && !cvt;
    }
    if ty == Type::Pred || ty.is_float() || ty.bits() > 64 {
        return false;
    }
    if cvt {
        ty.bits() <= s.bits()
    } else {
        ty.bits() == s.bits() || s.legacy_bits().contains(&ty.bits())
    }
}

impl Fx<'_, '_> {
    /// Special register `s` as a source operand of a `mov.ty` or (`cvt`) of a `cvt` with
    /// source type `ty`; a located error when the type does not fit.
    pub(super) fn sreg_operand(
        &self,
        s: SpecialReg,
        ty: Type,
        cvt: bool,
        loc: Loc,
    ) -> Result<Operand, PtxError> {
        if readable_as(s, ty, cvt) {
            return Ok(Operand::Special(s));
        }
        let what = match s.bits() {
            1 => ".pred".to_string(),
            b => format!("{b}-bit"),
        };
        Err(self.err(
            loc,
            format!(
                "special register '{}' ({what}) cannot be read with type {ty}{}",
                name(s),
                if cvt { " by cvt" } else { "" }
            ),
        ))
    }

    /// `mov.v4.type {a, b, c, d}, %sreg` (or a `.v4` register) for a special register
    /// with components: one `mov` per component, `.w` reading 0.
    pub(super) fn mov_sreg_vector(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Vec<InstKind>, PtxError> {
        let bad = |m: &Mods| {
            self.err(
                m.loc,
                format!(
                    "'{}': a vector mov reads a special register with components (%tid, %ntid, ...)",
                    m.text
                ),
            )
        };
        if !m.has("v4") {
            return Err(bad(m));
        }
        let ty = match m.types().as_slice() {
            [(t, _)] => *t,
            _ => return Err(bad(m)),
        };
        if i.operands.len() != 2 {
            return Err(bad(m));
        }
        let (d, a) = (&i.operands[0], &i.operands[1]);
        let f = match a {
            ast::Operand::Value(e) => match &e.kind {
                ExprKind::Sym { name, comp: None } => match lookup(name) {
                    Some(SregName::Vector(f)) => f,
                    _ => return Err(bad(m)),
                },
                _ => return Err(bad(m)),
            },
            _ => return Err(bad(m)),
        };
        let src = self.sreg_operand(f(Dim::X), ty, false, a.loc())?;
        let elems = self.vector_elems(d)?;
        if elems.len() != 4 {
            return Err(self.err(d.loc(), format!("'{}' needs 4 destinations", m.text)));
        }
        let mut out = Vec::new();
        for (k, el) in elems.into_iter().enumerate() {
            let dst = match el {
                VecElem::Op(ast::Operand::Sink(_)) => continue,
                VecElem::Op(op) => self.dst(op, ty, Fit::Strict)?,
                VecElem::Reg(r) => {
                    self.check_fit(r, ty, Fit::Strict, d.loc())?;
                    r
                }
            };
            let src = match k {
                0 => src,
                1 => Operand::Special(f(Dim::Y)),
                2 => Operand::Special(f(Dim::Z)),
                _ => Operand::Imm(0),
            };
            out.push(InstKind::Mov { ty, dst, src });
        }
        Ok(out)
    }
}
