//! The shape checker (`LaunchConfig::check_shapes`, `PTXJIT_CHECK_SHAPES=1`): while the
//! interpreter runs a function, every register that `ir::analysis::shape` calls uniform
//! or affine is checked over the active lanes at each block entry and after each
//! instruction that writes it; a wrong claim stops the warp with an error naming the
//! instruction, the register and two lanes that disagree. In launches whose `%ntid.x` is
//! 16, the claims of the analysis per half-warp (`LaunchShape::HALF_ROWS`, which the
//! JIT's first loads of runs use) are checked too, over each half's active lanes
//! numbered from the half's first lane.

use super::{lanes, Warp};
use crate::exec::ctx::{self, WarpCtx};
use crate::ir::analysis::shape::{strong_load, LaunchShape, Shape, Shapes, State};
use crate::ir::{BlockId, Function, InstId, RegId};

/// The analysis of one running function and the shapes at the current point.
pub(super) struct Checker {
    shapes: Shapes,
    state: State,
    /// The per-half analysis and its state, in launches whose `%ntid.x` is 16.
    half: Option<(Shapes, State)>,
}

impl Checker {
    /// The checker of `f` for this warp's launch, when the launch asks for one.
    pub fn new(ctx: &WarpCtx, f: &Function) -> Option<Checker> {
        (ctx.check_shapes != 0).then(|| Checker {
            shapes: Shapes::analyze(f, LaunchShape::of_block(ctx.ntid)),
            state: State::default(),
            half: (ctx.ntid[0] == 16)
                .then(|| (Shapes::analyze(f, LaunchShape::HALF_ROWS), State::default())),
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
        if let Some((sh, st)) = &mut chk.half {
            *st = sh.block_entry(b);
        }
        let at = self
            .f
            .blocks
            .get(b)
            .and_then(|blk| blk.insts.first().map(|i| i.id).or_else(|| blk.term.inst()));
        let when = "at the entry of its block";
        for r in chk.state.ids() {
            self.check_reg(ctx, &chk.state, None, r, active, at, when)?;
        }
        if let Some((_, st)) = &chk.half {
            for r in st.ids() {
                for h in 0..2 {
                    self.check_reg(ctx, st, Some(h), r, active, at, when)?;
                }
            }
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
        if let Some((sh, st)) = &mut chk.half {
            sh.step(self.f, st, inst, strong);
        }
        let when = "after this instruction";
        for r in inst.kind.defs() {
            self.check_reg(ctx, &chk.state, None, r, active, Some(inst.id), when)?;
            if let Some((_, st)) = &chk.half {
                for h in 0..2 {
                    self.check_reg(ctx, st, Some(h), r, active, Some(inst.id), when)?;
                }
            }
        }
        Ok(())
    }

    /// Checks register `r`'s claim in `state` over the active lanes, or (`half`) over
    /// those of one half-warp, numbered from its first lane.
    #[allow(clippy::too_many_arguments)]
    fn check_reg(
        &self,
        ctx: &mut WarpCtx,
        state: &State,
        half: Option<usize>,
        r: RegId,
        active: u32,
        at: Option<InstId>,
        when: &str,
    ) -> Result<(), ctx::Stopped> {
        let (active, first) = match half {
            Some(h) => (active & (0xffff << (16 * h)), 16 * h),
            None => (active, 0),
        };
        let Some(&sh) = state.get(r) else {
            return Ok(());
        };
        if sh.shape == Shape::Varying || active == 0 {
            return Ok(());
        }
        let bits = self.reg_bits(r);
        let vals: Vec<(usize, u64)> = lanes(active)
            .map(|l| (l - first, self.regs[r][l]))
            .collect();
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
            Shape::Affine(s) if sh.guarded => format!(
                "affine with lane stride {s:#x} (where the first and last active lanes agree)"
            ),
            Shape::Affine(s) => format!("affine with lane stride {s:#x}"),
            Shape::Varying => "varying".to_string(),
        };
        let per = if half.is_some() {
            " in each half-warp"
        } else {
            ""
        };
        let (l0, l1) = (l0 + first, l1 + first);
        let msg = format!(
            "shape check: the shape analysis claims register {} of `{}` is {claim}{per} (base with {} known low zero bits) {when}, but lane {l0} holds {v0:#x} and lane {l1} holds {v1:#x} (checked because of PTXJIT_CHECK_SHAPES)",
            self.f.regs[r].name,
            self.f.name,
            sh.tz.min(bits as u8)
        );
        // SAFETY: the runtime runs warps with their env set.
        unsafe { ctx::stop_with_error_at(ctx, msg, at.unwrap_or(InstId(u32::MAX)), l1 as u32) };
        Err(ctx::Stopped)
    }
}
