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
use cranelift_codegen::ir::{Inst, InstBuilder, Value};

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
}
