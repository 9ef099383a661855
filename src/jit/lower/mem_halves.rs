//! Loads of 4-byte elements whose half-warps each read one address or 16 consecutive
//! elements (see `mem.rs`): the rows of a 16-wide tile, such as sgemm's `As[ty][k]`
//! (one address per half) and `Bs[k][tx]` (the same 16 elements in both halves) in a
//! 16 × 16 block, and the global loads that fill such tiles (two rows of 16). Tried
//! after the coalesced test fails, before the shared gather or the helper: with all 32
//! lanes active and both halves in one of the two shapes, each half is one scalar load
//! and a splat or four vector loads, after one alignment and range check per half
//! (inside the shared window, or inside the instruction's cached region, asking
//! `ptxjit_region` once on a miss). Anything else continues where it would have.

use crate::ir::{InstId, Space};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::FuncTranslator;
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2, I8};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value};

use super::mem::heap_flags;

/// Bytes of one element (the only size this path handles).
const EB: u64 = 4;

impl FuncTranslator<'_> {
    /// Tests the lane addresses `a` (16 × i64x2; shared-window offsets in `.shared`) of
    /// a 4-byte load for the half-warp shapes with all lanes active (`bits`); on a hit,
    /// loads and jumps to `join` with the 8 × i32x4 containers; otherwise jumps to
    /// `miss`.
    pub(super) fn halves_load(
        &mut self,
        space: Space,
        a: &WarpValue,
        bits: Value,
        inst: InstId,
        join: Block,
        miss: Block,
    ) -> Result<(), JitError> {
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, bits, u32::MAX as i64);
        let mut ok = full;
        // Per half: (address of its first lane, consecutive (i8)).
        let mut halves = Vec::with_capacity(2);
        for h in 0..2usize {
            let base = self.b.ins().extractlane(a.v[8 * h], 0);
            let s = self.b.ins().splat(I64X2, base);
            let (mut cons, mut uni): (Option<Value>, Option<Value>) = (None, None);
            for k in 0..8usize {
                let x = a.v[8 * h + k];
                let l = 2 * k as u64;
                let off = lanes::const_i64x2(&mut self.b, [l * EB, (l + 1) * EB]);
                let exp = self.b.ins().iadd(s, off);
                let c = self.b.ins().icmp(IntCC::Equal, x, exp);
                let u = self.b.ins().icmp(IntCC::Equal, x, s);
                cons = Some(match cons {
                    None => c,
                    Some(y) => self.b.ins().band(y, c),
                });
                uni = Some(match uni {
                    None => u,
                    Some(y) => self.b.ins().band(y, u),
                });
            }
            let (cons, uni) = (cons.unwrap_or(s), uni.unwrap_or(s));
            let cons = self.b.ins().vall_true(cons);
            let uni = self.b.ins().vall_true(uni);
            let either = self.b.ins().bor(cons, uni);
            ok = self.b.ins().band(ok, either);
            let low = self.b.ins().band_imm_u(base, EB as i64 - 1);
            let al = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, al);
            halves.push((base, cons));
        }
        let go = self.b.create_block();
        for _ in 0..2 {
            self.b.append_block_param(go, I64);
        }
        let placed = self.b.create_block();
        self.b.ins().brif(ok, placed, &[], miss, &[]);
        self.b.switch_to_block(placed);
        if space == Space::Shared {
            let mut inside = None;
            let mut hosts = Vec::with_capacity(2);
            for &(base, cons) in &halves {
                let (in64, host) = self.in_shared_window(base, 16 * EB as i64);
                let (in4, _) = self.in_shared_window(base, EB as i64);
                let x = self.b.ins().select(cons, in64, in4);
                inside = Some(match inside {
                    None => x,
                    Some(y) => self.b.ins().band(y, x),
                });
                hosts.push(BlockArg::Value(host));
            }
            let inside = inside.unwrap_or(full);
            self.b.ins().brif(inside, go, &hosts, miss, &[]);
        } else {
            let hosts: Vec<BlockArg> = halves.iter().map(|&(x, _)| BlockArg::Value(x)).collect();
            let inside = self.halves_cached(inst, &halves);
            let lookup = self.b.create_block();
            self.b.ins().brif(inside, go, &hosts, lookup, &[]);
            // A cache miss: one region-table lookup for the first half, then the test
            // again.
            self.b.switch_to_block(lookup);
            let (b0, c0) = halves[0];
            let big = lanes::iconst64(&mut self.b, 16 * EB);
            let small = lanes::iconst64(&mut self.b, EB);
            let len = self.b.ins().select(c0, big, small);
            let wr = lanes::iconst32(&mut self.b, 0);
            let instv = lanes::iconst32(&mut self.b, inst.0);
            let hf = self.helper(Helper::Region)?;
            let call = self.b.ins().call(hf, &[self.ctx, b0, len, wr, instv]);
            let found = self.b.inst_results(call)[0];
            let again = self.b.create_block();
            self.b.ins().brif(found, again, &[], miss, &[]);
            self.b.switch_to_block(again);
            let inside = self.halves_cached(inst, &halves);
            self.b.ins().brif(inside, go, &hosts, miss, &[]);
        }
        self.b.switch_to_block(go);
        let hosts = self.b.block_params(go).to_vec();
        let mut out = Vec::with_capacity(8);
        for (h, &(_, cons)) in hosts.into_iter().zip(&halves) {
            out.extend(self.half_values(h, cons));
        }
        let args: Vec<BlockArg> = out.iter().map(|&x| BlockArg::Value(x)).collect();
        self.b.ins().jump(join, &args);
        Ok(())
    }

    /// Whether both halves (first address, consecutive) lie in instruction `inst`'s
    /// cached region (i8).
    fn halves_cached(&mut self, inst: InstId, halves: &[(Value, Value)]) -> Value {
        let mut all = None;
        for &(base, cons) in halves {
            let in64 = self.in_cached_region(inst, base, 16 * EB as i64);
            let in4 = self.in_cached_region(inst, base, EB as i64);
            let x = self.b.ins().select(cons, in64, in4);
            all = Some(match all {
                None => x,
                Some(y) => self.b.ins().band(y, x),
            });
        }
        all.unwrap_or_else(|| self.b.ins().iconst(I8, 0))
    }

    /// The four i32x4 containers of one half at host address `host`: four vector loads
    /// when `cons` (i8) is set, else one scalar load splat.
    fn half_values(&mut self, host: Value, cons: Value) -> Vec<Value> {
        let vec = self.b.create_block();
        let one = self.b.create_block();
        let done = self.b.create_block();
        for _ in 0..4 {
            self.b.append_block_param(done, I32X4);
        }
        self.b.ins().brif(cons, vec, &[], one, &[]);
        self.b.switch_to_block(vec);
        let v: Vec<BlockArg> = (0..4)
            .map(|k| {
                let x = self.b.ins().load(I32X4, heap_flags(), host, 16 * k);
                BlockArg::Value(x)
            })
            .collect();
        self.b.ins().jump(done, &v);
        self.b.switch_to_block(one);
        let x = self.b.ins().load(I32, heap_flags(), host, 0);
        let s = self.b.ins().splat(I32X4, x);
        let v = [BlockArg::Value(s); 4];
        self.b.ins().jump(done, &v);
        self.b.switch_to_block(done);
        self.b.block_params(done).to_vec()
    }
}
