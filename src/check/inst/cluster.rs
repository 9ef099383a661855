//! Lowering of the thread-block-cluster instructions (sm_90) to [`InstKind::Async`]
//! operations that `crate::exec::cluster` runs: `mapa{.shared::cluster}.{u32,u64}`,
//! `getctarank{.shared::cluster}.{u32,u64}`, `cvta{.to}.shared::cluster.{u32,u64}` and
//! `barrier.cluster.arrive{.release,.relaxed}{.aligned}` /
//! `barrier.cluster.wait{.acquire}{.aligned}`. (`ld`/`st`/`atom`/`red` on
//! `.shared::cluster` are ordinary memory instructions in [`Space::SharedCluster`].)
//!
//! [`InstKind::Async`]: crate::ir::InstKind::Async

use super::{Lowered, Mods};
use crate::check::func::Fx;
use crate::check::operand::Val;
use crate::ir::{AddrBase, Address, AsyncOp, Fit, InstKind, Space, Type};
use crate::parse::ast::{self, Instruction};
use crate::parse::PtxError;

impl Fx<'_, '_> {
    /// The `.u32`/`.u64` type of a cluster address instruction (ptxas 12.9 also takes
    /// `.s32`/`.s64` for `mapa` and `getctarank`, the same address widths; `.b32`/`.b64`
    /// are "Unexpected instruction types").
    fn cluster_addr_type(&self, m: &mut Mods) -> Result<Type, PtxError> {
        match m.one_of(&["u32", "u64", "s32", "s64"]) {
            Some("u32" | "s32") => Ok(Type::U32),
            Some(_) => Ok(Type::U64),
            None => Err(self.err(m.loc, format!("'{}' needs .u32 or .u64", m.text))),
        }
    }

    /// The address operand `a` (a 32- or 64-bit register, or with `space`
    /// `.shared::cluster` a `.shared` variable with an optional offset), unbracketed.
    pub(super) fn cluster_addr(
        &self,
        op: &ast::Operand,
        space: Space,
        m: &Mods,
    ) -> Result<Address, PtxError> {
        let ast::Operand::Value(e) = op else {
            return Err(self.err(op.loc(), "expected an address register or variable"));
        };
        match self.value(e)? {
            Val::Reg(r, offset) => {
                // Like an address in brackets: any 32- or 64-bit integer register (ptxas
                // accepts `getctarank.shared::cluster.u64 d, %r32 + 4`).
                let t = self.reg_ty(r);
                if t == Type::Pred || t.is_float() || !(t.bits() == 32 || t.bits() == 64) {
                    let msg = format!(
                        "address register '{}' has type {t}; '{}' needs a 32- or 64-bit integer",
                        self.reg_name(r),
                        m.text
                    );
                    return Err(self.err(e.loc, msg));
                }
                Ok(Address {
                    base: AddrBase::Reg(r),
                    offset,
                })
            }
            Val::Var(v, offset, name) => {
                if space != Space::SharedCluster || v.space != Space::Shared {
                    return Err(self.err(
                        e.loc,
                        format!("'{}' takes no variable '{name}' here", m.text),
                    ));
                }
                Ok(Address {
                    base: AddrBase::Var(v.vref),
                    offset,
                })
            }
            // ptxas accepts an integer as the address (`mapa.shared::cluster.u32 d, 3, r`
            // assembles to the cubin of `mapa` on a register holding 3).
            Val::Const(c) => match c.as_i64() {
                Some(offset) => Ok(Address {
                    base: AddrBase::Abs,
                    offset,
                }),
                None => Err(self.err(e.loc, "an absolute address must be an integer")),
            },
            _ => Err(self.err(e.loc, "expected an address register or variable")),
        }
    }

    /// `mapa{.shared::cluster}.type d, a, b` and `getctarank{.shared::cluster}.type d, a`.
    pub(super) fn mapa_getctarank(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<InstKind, PtxError> {
        let space = match m.has("shared::cluster") {
            true => Space::SharedCluster,
            false => Space::Generic,
        };
        let ty = self.cluster_addr_type(m)?;
        let mapa = i.opcode.name == "mapa";
        self.nops(i, m, 2 + mapa as usize)?;
        // ptxas: a bare address register has the instruction type's size ("Arguments
        // mismatch" for `getctarank.shared::cluster.u64 d, %r32`); `reg + imm` may be
        // either size (the dispatcher made it a register of the sum, `reg_plus.rs`).
        if let ast::Operand::Value(e) = &i.operands[1] {
            if let Ok(Val::Reg(r, 0)) = self.value(e) {
                let t = self.reg_ty(r);
                let bare = !self.plus_regs.contains(&r);
                if bare && t.bits() != ty.bits() && matches!(t.bits(), 32 | 64) && !t.is_float() {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "address register '{}' is {}-bit; '{}' needs a {}-bit address",
                            self.reg_name(r),
                            t.bits(),
                            m.text,
                            ty.bits()
                        ),
                    ));
                }
            }
        }
        let a = self.cluster_addr(&i.operands[1], space, m)?;
        let (op, dty, srcs) = if mapa {
            // The CTA rank is a `.u32` operand of exactly that size (ptxas 12.9:
            // "Arguments mismatch for instruction 'mapa'" for a `.b64` register).
            let b = self.src(&i.operands[2], Type::U32, Fit::Strict)?;
            let op = AsyncOp::Mapa {
                wide: ty == Type::U64,
            };
            (op, ty, vec![b])
        } else {
            (AsyncOp::GetCtaRank, Type::U32, vec![])
        };
        let d = self.dst(&i.operands[0], dty, Fit::Relaxed)?;
        Ok(InstKind::Async {
            op,
            dsts: vec![Some(d)],
            addrs: vec![(space, a)],
            srcs,
        })
    }

    /// `cvta.shared::cluster.size d, a` and `cvta.to.shared::cluster.size d, a`
    /// (`space_mod` has taken `.shared::cluster`).
    pub(super) fn cvta_cluster(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        to: bool,
    ) -> Result<InstKind, PtxError> {
        let ty = self.cluster_addr_type(m)?;
        self.nops(i, m, 2)?;
        let space = if to {
            Space::Generic
        } else {
            Space::SharedCluster
        };
        let a = self.cluster_addr(&i.operands[1], space, m)?;
        let d = self.dst(&i.operands[0], ty, Fit::Strict)?;
        Ok(InstKind::Async {
            op: AsyncOp::ClusterCvta {
                to_generic: !to,
                wide: ty == Type::U64,
            },
            dsts: vec![Some(d)],
            addrs: vec![(space, a)],
            srcs: vec![],
        })
    }

    /// `barrier.cluster.arrive{.release,.relaxed}{.aligned}` and
    /// `barrier.cluster.wait{.acquire}{.aligned}`.
    pub(super) fn barrier_cluster(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
    ) -> Result<Lowered, PtxError> {
        m.has("cluster");
        let op = match m.one_of(&["arrive", "wait"]) {
            Some("arrive") => {
                m.one_of(&["release", "relaxed"]);
                AsyncOp::ClusterArrive
            }
            Some(_) => {
                m.has("acquire");
                AsyncOp::ClusterWait
            }
            None => return Err(self.unsupported(m)),
        };
        m.has("aligned");
        self.nops(i, m, 0)?;
        Ok(Lowered::Insts(vec![InstKind::Async {
            op,
            dsts: vec![],
            addrs: vec![],
            srcs: vec![],
        }]))
    }
}
