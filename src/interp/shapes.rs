//! The shape checker (`LaunchConfig::check_shapes`, `PTXJIT_CHECK_SHAPES=1`): while the
//! interpreter runs a function, every register that `ir::analysis::shape` calls uniform
//! or affine is checked over the active lanes at each block entry and after each
//! instruction that writes it; a wrong claim stops the warp with an error naming the
//! instruction, the register and two lanes that disagree.

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::analysis::shape::{strong_load, LaunchShape, Shape, Shapes, State};
use crate::ir::{BlockId, Function, InstId, RegId};

/// The analysis of one running function and the shapes at the current point.
pub(super) struct Checker {
    shapes: Shapes,
    state: State,
}

impl Checker {
    /// The checker of `f` for this warp's launch, when the launch asks for one.
    pub fn new(ctx: &WarpCtx, f: &Function) -> Option<Checker> {
        (ctx.check_shapes != 0).then(|| Checker {
            shapes: Shapes::analyze(f, LaunchShape::of_block(ctx.ntid)),
            state: State::default(),
        })
    }
}

impl Warp<'_> {
    /// At the entry of block `b`: resets the state and checks every register.
    pub(super) fn shapes_enter(
        &self,
        ctx: &mut WarpCtx,
        chk: &mut Checker,
        b: BlockId,
        active: u32,
    ) -> Result<(), ctx::Stopped> {
        chk.state = chk.shapes.block_entry(b);
        let at = self
            .f
            .blocks
            .get(b)
            .and_then(|blk| blk.insts.first().map(|i| i.id).or_else(|| blk.term.inst()));
        for r in chk.state.ids() {
            self.check_reg(ctx, chk, r, active, at, "at the entry of its block")?;
        }
        Ok(())
    }

    /// After instruction `i` of block `b` ran: steps the state and checks what it wrote.
    pub(super) fn shapes_step(
        &self,
        ctx: &mut WarpCtx,
        chk: &mut Checker,
        b: BlockId,
        i: usize,
        active: u32,
    ) -> Result<(), ctx::Stopped> {
        let Some(inst) = self.f.blocks.get(b).and_then(|blk| blk.insts.get(i)) else {
            return Ok(());
        };
        let strong = strong_load(&self.f.blocks[b], i);
        chk.shapes.step(self.f, &mut chk.state, inst, strong);
        for r in inst.kind.defs() {
            self.check_reg(ctx, chk, r, active, Some(inst.id), "after this instruction")?;
        }
        Ok(())
    }

    fn check_reg(
        &self,
        ctx: &mut WarpCtx,
        chk: &Checker,
        r: RegId,
        active: u32,
        at: Option<InstId>,
        when: &str,
    ) -> Result<(), ctx::Stopped> {
        let Some(&sh) = chk.state.get(r) else {
            return Ok(());
        };
        if sh.shape == Shape::Varying || active == 0 {
            return Ok(());
        }
        let bits = self.reg_bits(r);
        let vals: Vec<(usize, u64)> = lanes(active).map(|l| (l, self.regs[r][l])).collect();
        if sh.holds(bits, &vals) {
            return Ok(());
        }
        let (l0, v0) = vals[0];
        let (l1, v1) = vals
            .iter()
            .copied()
            .find(|&(l, v)| !sh.holds(bits, &[(l0, v0), (l, v)]))
            .unwrap_or(vals[0]);
        let claim = match sh.shape {
            Shape::Uniform => "uniform".to_string(),
            Shape::Affine(s) => format!("affine with lane stride {s:#x}"),
            Shape::Varying => "varying".to_string(),
        };
        let msg = format!(
            "shape check: the shape analysis claims register {} of `{}` is {claim} (base with {} known low zero bits) {when}, but lane {l0} holds {v0:#x} and lane {l1} holds {v1:#x} (checked because of PTXJIT_CHECK_SHAPES)",
            self.f.regs[r].name,
            self.f.name,
            sh.tz.min(bits as u8)
        );
        // SAFETY: the runtime runs warps with their env set.
        unsafe { ctx::stop_with_error_at(ctx, msg, at.unwrap_or(InstId(u32::MAX)), l1 as u32) };
        Err(ctx::Stopped)
    }
}
