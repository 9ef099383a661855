//! `brx.idx`: an indirect branch through a `.branchtargets` list.
//!
//! The guarded active lanes check their indices first (the lowest lane with an index
//! past the list faults, as in the interpreter, before any lane moves). In the
//! convergent variant, when every active lane takes the branch with the same index, it
//! is a `br_table` over the targets' convergent blocks; otherwise each lane records its
//! own target (a byte-shuffle table lookup for lists of up to 16 entries, else a select
//! per list entry) and the dispatcher runs the lowest pending block.

use crate::ir::{BlockId, Guard, InstId, Operand, Type};
use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue, N32};
use crate::jit::translate::{FuncTranslator, Mode};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32X4, I8X16};
use cranelift_codegen::ir::{InstBuilder, JumpTableData, Value};

impl FuncTranslator<'_> {
    pub(crate) fn brx_idx(
        &mut self,
        guard: Option<Guard>,
        index: &Operand,
        targets: &[BlockId],
        next: BlockId,
        inst: InstId,
    ) -> Result<(), JitError> {
        let nb = self.block(next)?;
        let len = targets.len() as u32;
        let mut m = self.exec_mask(guard);
        let tbits = self.mbits(&mut m);
        let m32 = self.m32(&m);
        let idx = self.read(index, Type::U32, false)?;
        // Bad indices among the taking lanes.
        let lenv = lanes::splat32(&mut self.b, len);
        let bad: Vec<Value> = (0..N32)
            .map(|k| {
                let c = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, idx.v[k], lenv);
                self.b.ins().band(c, m32[k])
            })
            .collect();
        let badbits = lanes::bits_from_mask(&mut self.b, &bad);
        let fault = self.b.create_block();
        let ok = self.b.create_block();
        self.b.ins().brif(badbits, fault, &[], ok, &[]);
        self.b.switch_to_block(fault);
        let k = self.first_lane(&idx, badbits);
        let h = self.helper(Helper::BadBranch)?;
        let instv = lanes::iconst32(&mut self.b, inst.0);
        let lenc = lanes::iconst32(&mut self.b, len);
        self.b.ins().call(h, &[self.ctx, instv, badbits, k, lenc]);
        self.b.ins().jump(self.ret_status, &[]);
        self.b.switch_to_block(ok);
        if self.mode == Mode::Conv {
            // Every active lane takes the branch with one index: a direct jump table.
            let ab = self.b.use_var(self.active_bits);
            let all = self.b.ins().icmp(IntCC::Equal, tbits, ab);
            let none = self.b.create_block();
            let check_uni = self.b.create_block();
            let slow = self.b.create_block();
            let some = self.b.create_block();
            self.b.ins().brif(all, check_uni, &[], some, &[]);
            self.b.switch_to_block(some);
            self.b.ins().brif(tbits, slow, &[], none, &[]);
            self.b.switch_to_block(none);
            self.b.ins().jump(nb, &[]);
            self.b.switch_to_block(check_uni);
            let first = self.first_lane(&idx, ab);
            let fv = self
                .b
                .ins()
                .splat(cranelift_codegen::ir::types::I32X4, first);
            let eq: Vec<Value> = (0..N32)
                .map(|k| self.b.ins().icmp(IntCC::Equal, idx.v[k], fv))
                .collect();
            let eqbits = lanes::bits_from_mask(&mut self.b, &eq);
            let eqa = self.b.ins().band(eqbits, ab);
            let uni = self.b.ins().icmp(IntCC::Equal, eqa, ab);
            let table = self.b.create_block();
            self.b.ins().brif(uni, table, &[], slow, &[]);
            self.b.switch_to_block(table);
            let def = self.b.func.dfg.block_call(slow, &[]);
            let mut calls = Vec::with_capacity(targets.len());
            for t in targets {
                let blk = self.block(*t)?;
                calls.push(self.b.func.dfg.block_call(blk, &[]));
            }
            let jt = self.b.create_jump_table(JumpTableData::new(def, &calls));
            self.b.ins().br_table(first, jt);
            self.b.switch_to_block(slow);
            let nonev = lanes::splat32(&mut self.b, u32::MAX);
            for k in 0..N32 {
                self.b.def_var(self.next[k], nonev);
            }
        }
        // Each taking lane records its own target, the others `next`.
        if targets.len() <= 16 {
            self.record_table(&idx, &m32, targets);
        } else {
            for (j, t) in targets.iter().enumerate() {
                let jv = lanes::splat32(&mut self.b, j as u32);
                let sel: Vec<Value> = (0..N32)
                    .map(|k| {
                        let e = self.b.ins().icmp(IntCC::Equal, idx.v[k], jv);
                        self.b.ins().band(e, m32[k])
                    })
                    .collect();
                self.record(&sel, *t);
            }
        }
        let act = self.active_vals();
        let rest = lanes::andnot_masks(&mut self.b, &act, &m32);
        self.record(&rest, next);
        self.b.ins().jump(self.dispatch, &[]);
        Ok(())
    }

    /// The lanes of `m32` (whose indices `idx` are below `targets.len()` ≤ 16) record
    /// `targets[idx]`: each byte of the block numbers is looked up in a 16-entry table
    /// with one byte shuffle per 4 lanes (`swizzle`; control bytes of 0x80 give 0),
    /// instead of a compare and a select per list entry (the `bytecode` kernel: 16
    /// entries, 8 vectors).
    fn record_table(&mut self, idx: &WarpValue, m32: &[Value], targets: &[BlockId]) {
        let nbytes = targets
            .iter()
            .map(|t| (32 - t.0.leading_zeros()).div_ceil(8))
            .max()
            .unwrap_or(0)
            .max(1);
        let tables: Vec<Value> = (0..nbytes)
            .map(|byte| {
                let mut tb = vec![0u8; 16];
                for (j, t) in targets.iter().enumerate() {
                    tb[j] = (t.0 >> (8 * byte)) as u8;
                }
                lanes::vconst(&mut self.b, I8X16, tb)
            })
            .collect();
        let fills: Vec<Value> = (0..nbytes)
            .map(|byte| lanes::splat32(&mut self.b, 0x8080_8080 & !(0xffu32 << (8 * byte))))
            .collect();
        for k in 0..N32 {
            let mut acc: Option<Value> = None;
            for byte in 0..nbytes as usize {
                let sh = match byte {
                    0 => idx.v[k],
                    _ => self.b.ins().ishl_imm_u(idx.v[k], 8 * byte as i64),
                };
                let c = self.b.ins().bor(sh, fills[byte]);
                let c = lanes::bitcast(&mut self.b, I8X16, c);
                let r = self.b.ins().swizzle(tables[byte], c);
                let r = lanes::bitcast(&mut self.b, I32X4, r);
                acc = Some(match acc {
                    None => r,
                    Some(a) => self.b.ins().bor(a, r),
                });
            }
            let Some(t) = acc else { continue };
            let old = self.b.use_var(self.next[k]);
            let new = self.b.ins().bitselect(m32[k], t, old);
            self.b.def_var(self.next[k], new);
        }
    }
}
