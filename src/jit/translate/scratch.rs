//! The scratch stack slot every function has for helper calls, and its one layout:
//! 32 lane addresses (`u64`) at offset 0, then the data area ([`SCRATCH_DATA`]) of
//! [`DATA_SLOTS`] slots of 32 lanes × 8 bytes. A lane-wise helper call
//! ([`FuncTranslator::call_lanewise`]) passes operand `k` in slot `k` (4 bytes per lane
//! for 32-bit containers, 8 for 64-bit ones) and receives its result in
//! [`SLOT_OUT`]. Helpers that move whole registers or have another shape (`matrix`,
//! the built-ins in `misc`, vector `ld`/`st` in `mem`, `nanosleep` in `sync`) lay out
//! the data area themselves, at [`SCRATCH_DATA`].

use crate::jit::abi::Helper;
use crate::jit::translate::lanes::{self, WarpValue};
use crate::jit::translate::{FuncTranslator, Mask};
use crate::jit::JitError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{BlockArg, Inst, InstBuilder, MemFlagsData, Value};

/// Bytes of one data slot: 32 lanes × 8 bytes.
pub(crate) const SLOT_BYTES: i32 = 256;
/// Slots in the data area: 9, for the largest texture instruction's sources
/// (`tex.grad.3d` in the independent mode with offsets: 2 handles, 4 coordinates, 6
/// gradients and 4 offsets, 2304 bytes).
pub(crate) const DATA_SLOTS: i32 = 9;
/// Bytes of the per-function scratch stack slot: 32 lane addresses (256 B) followed by
/// the data area (2.25 KiB).
pub(crate) const SCRATCH_BYTES: u32 = 256 + (DATA_SLOTS * SLOT_BYTES) as u32;
/// Offset of the data area in the scratch slot.
pub(crate) const SCRATCH_DATA: i32 = 256;
/// Operand slots of a lane-wise helper call.
pub(crate) const OPERAND_SLOTS: usize = 4;
/// The result slot of a lane-wise helper call (after the operand slots).
pub(crate) const SLOT_OUT: i32 = slot(OPERAND_SLOTS);

/// Offset of data slot `k` in the scratch slot.
pub(crate) const fn slot(k: usize) -> i32 {
    SCRATCH_DATA + SLOT_BYTES * k as i32
}

impl FuncTranslator<'_> {
    /// Calls lane-wise helper `h` with the arguments `lead` (descriptor, mask bits,
    /// ...), then a pointer to each of the first `nslots` operand slots, holding
    /// `operands` in order (slots beyond them are passed but not written), then a
    /// pointer to [`SLOT_OUT`]. Returns the call; [`Self::lanewise_result`] reads the
    /// result slot.
    pub(crate) fn call_lanewise(
        &mut self,
        h: Helper,
        lead: &[Value],
        operands: &[WarpValue],
        nslots: usize,
    ) -> Result<Inst, JitError> {
        debug_assert!(operands.len() <= nslots && nslots <= OPERAND_SLOTS);
        for (k, w) in operands.iter().enumerate() {
            self.spill(w, slot(k));
        }
        let mut args = lead.to_vec();
        for k in 0..nslots {
            args.push(self.scratch_addr(slot(k)));
        }
        args.push(self.scratch_addr(SLOT_OUT));
        let f = self.helper(h)?;
        Ok(self.b.ins().call(f, &args))
    }

    /// The result of the last lane-wise helper call (a 64-bit container if `wide`).
    pub(crate) fn lanewise_result(&mut self, wide: bool) -> WarpValue {
        self.unspill(wide, SLOT_OUT)
    }

    /// `call_lanewise` for the common shape `(desc, mask bits, slots..., out)`.
    pub(crate) fn call_lanewise_desc(
        &mut self,
        h: Helper,
        desc: u64,
        mask: &mut Mask,
        operands: &[WarpValue],
        nslots: usize,
    ) -> Result<Inst, JitError> {
        let bits = self.mbits(mask);
        let desc = lanes::iconst64(&mut self.b, desc);
        self.call_lanewise(h, &[desc, bits], operands, nslots)
    }

    /// `body` applied to vector `k` of each of `ws` (at most [`OPERAND_SLOTS`] warp
    /// values of one vector count) for every `k`, in a Cranelift loop over the vectors
    /// instead of one copy of its code per vector: the quick tier's form of long
    /// per-vector sequences (an 8- or 16-fold smaller function, the same operations on
    /// the same lanes, so the same bits). `ws[i]` goes to operand slot `i`; iteration
    /// `k` loads vector `k` of each and stores `body`'s result (a 16-byte vector of one
    /// type for every `k`) to vector `k` of [`SLOT_OUT`], read back after the loop.
    /// `body` must not read or write registers (its instructions run once per vector).
    /// Ends the current block; the translation continues in the loop's exit block.
    pub(crate) fn vector_loop(
        &mut self,
        ws: &[&WarpValue],
        body: impl Fn(&mut Self, &[Value]) -> Value,
    ) -> WarpValue {
        debug_assert!(!ws.is_empty() && ws.len() <= OPERAND_SLOTS);
        let n = ws[0].v.len();
        let mut srcs = Vec::with_capacity(ws.len());
        for (i, w) in ws.iter().enumerate() {
            debug_assert_eq!(w.v.len(), n);
            self.spill(w, slot(i));
            let ty = self.b.func.dfg.value_type(w.v[0]);
            srcs.push((self.scratch_addr(slot(i)), ty));
        }
        let dst = self.scratch_addr(SLOT_OUT);
        let zero = self.b.ins().iconst(I64, 0);
        let head = self.b.create_block();
        let off = self.b.append_block_param(head, I64);
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let fl = MemFlagsData::new().with_notrap();
        let xs: Vec<Value> = srcs
            .iter()
            .map(|&(base, ty)| {
                let a = self.b.ins().iadd(base, off);
                self.b.ins().load(ty, fl, a, 0)
            })
            .collect();
        let r = body(self, &xs);
        let rty = self.b.func.dfg.value_type(r);
        let a = self.b.ins().iadd(dst, off);
        self.b.ins().store(fl, r, a, 0);
        let next = self.b.ins().iadd_imm_s(off, 16);
        let end = 16 * n as i64;
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, next, end);
        self.b
            .ins()
            .brif(more, head, &[BlockArg::Value(next)], exit, &[]);
        self.b.switch_to_block(exit);
        let out = self.scratch_addr(SLOT_OUT);
        let v = (0..n)
            .map(|k| self.b.ins().load(rty, fl, out, 16 * k as i32))
            .collect();
        WarpValue {
            wide: ws[0].wide,
            v,
        }
    }
}
