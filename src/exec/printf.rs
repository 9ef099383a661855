//! The runtime built-ins of [`InstKind::Builtin`], shared by both backends (`trap` and
//! `brkpt` stop the launch; `malloc`/`free` go to [`crate::exec::heap`]): CUDA's
//! device `vprintf` (C `printf` formatting of a packed argument buffer, one record per
//! lane in ascending lane order, appended to the launch's output) and `__assertfail`
//! (stops the launch with an error naming message, file, line and function).
//!
//! Every byte read (format, argument buffer, `%s` strings) goes through the checked
//! access path ([`ctx::access`]), so a bad pointer is a located fault. Strings are
//! bounded by [`MAX_STRING`] bytes.
//!
//! `vprintf` returns, as CUDA's does, the number of arguments it consumed (0 without
//! conversions), or -1 for a NULL format.
//!
//! [`InstKind::Builtin`]: crate::ir::InstKind::Builtin

use crate::exec::ctx::{self, AccessReq, Stopped, WarpCtx, WARP_SIZE};
use crate::exec::heap::FreeError;
use crate::ir::{Builtin, CdpFn, InstId, Space};

/// Longest format or `%s` string read (bytes before the NUL).
pub const MAX_STRING: usize = 1 << 16;

/// How the error message of a failed `__assertfail` starts.
pub const ASSERT_PREFIX: &str = "assertion failed: ";

/// Most arguments one `printf` consumes (CUDA's limit); later conversions are printed
/// as they are written.
pub const MAX_ARGS: u32 = 32;

/// Runs built-in `op` for the lanes in `mask` (ascending). `args[k][lane]` is operand
/// `k` of `lane` (see [`Builtin::params`]). Returns each lane's result (`vprintf`'s
/// return value, `malloc`'s pointer; 0 elsewhere).
///
/// # Safety
/// `ctx.env` must point to this warp's live `WarpEnv`.
pub unsafe fn exec(
    ctx: &mut WarpCtx,
    op: Builtin,
    mask: u32,
    inst: InstId,
    args: &[[u64; WARP_SIZE]],
) -> Result<[u64; WARP_SIZE], Stopped> {
    if let Builtin::Cdp(f @ (CdpFn::CgsGetIntrinsicHandle | CdpFn::CgsSync)) = op {
        // SAFETY: the caller's contract.
        return unsafe { crate::exec::gridsync::exec(ctx, f, mask, inst, args) };
    }
    if let Builtin::Cdp(f) = op {
        // SAFETY: the caller's contract.
        return unsafe { crate::exec::cdp::exec(ctx, f, mask, inst, args) };
    }
    let mut out = [0u64; WARP_SIZE];
    let arg = |k: usize, lane: usize| args.get(k).map_or(0, |a| a[lane]);
    let mut text = Vec::new();
    for lane in (0..WARP_SIZE).filter(|l| mask >> l & 1 != 0) {
        match op {
            Builtin::Vprintf => {
                let mut m = Mem { ctx, inst, lane };
                // SAFETY: the caller's contract.
                let r = unsafe { vprintf(&mut m, arg(0, lane), arg(1, lane), &mut text)? };
                out[lane] = r as u32 as u64;
            }
            Builtin::AssertFail => {
                let mut m = Mem { ctx, inst, lane };
                // SAFETY: the caller's contract (for all four reads).
                let (msg, file, func) = unsafe {
                    (
                        m.cstr(arg(0, lane))?,
                        m.cstr(arg(1, lane))?,
                        m.cstr(arg(3, lane))?,
                    )
                };
                let s = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
                let msg = format!(
                    "{ASSERT_PREFIX}{} at {}:{} in {}",
                    s(msg),
                    s(file),
                    arg(2, lane) as u32,
                    s(func)
                );
                emit(ctx, &text);
                // SAFETY: the caller's contract.
                unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
                return Err(Stopped);
            }
            Builtin::Trap | Builtin::Brkpt => {
                let msg = if op == Builtin::Trap {
                    "the kernel executed `trap` (a GPU reports CUDA_ERROR_LAUNCH_FAILED, \"unspecified launch failure\")"
                } else {
                    "the kernel executed `brkpt` with no debugger attached (a GPU reports CUDA_ERROR_LAUNCH_FAILED)"
                };
                emit(ctx, &text);
                // SAFETY: the caller's contract.
                unsafe { ctx::stop_with_error_at(ctx, msg.to_string(), inst, lane as u32) };
                return Err(Stopped);
            }
            Builtin::Cdp(_) => {}
            Builtin::Alloca { .. } | Builtin::StackSave { .. } | Builtin::StackRestore { .. } => {
                // SAFETY: the caller's contract.
                out[lane] = unsafe { crate::exec::stack::exec(ctx, op, lane, arg(0, lane), inst)? };
            }
            Builtin::Malloc | Builtin::Free => {
                // SAFETY: the caller's contract.
                let heap = unsafe { (*ctx.env).heap.clone() };
                let Some(heap) = heap else {
                    let msg = "device-side malloc/free without a device heap".to_string();
                    // SAFETY: the caller's contract.
                    unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
                    return Err(Stopped);
                };
                // SAFETY: the caller's contract.
                let san = unsafe { (*ctx.env).san.clone() };
                let res = if op == Builtin::Malloc {
                    out[lane] = heap.malloc(arg(0, lane));
                    if let Some(s) = &san {
                        s.heap_malloc(&ctx::view(ctx), inst, lane, out[lane], arg(0, lane));
                    }
                    Ok(())
                } else {
                    let r = heap.free(arg(0, lane));
                    match san
                        .and_then(|s| s.heap_free(&ctx::view(ctx), inst, lane, arg(0, lane), r))
                    {
                        Some(true) => Ok(()),
                        Some(false) => {
                            emit(ctx, &text);
                            // SAFETY: the caller's contract.
                            unsafe {
                                ctx::stop_with_error_at(
                                    ctx,
                                    ctx::SANITIZER_STOP.into(),
                                    inst,
                                    lane as u32,
                                )
                            };
                            return Err(Stopped);
                        }
                        None => r,
                    }
                };
                if let Err(e) = res {
                    let p = arg(0, lane);
                    let msg = match e {
                        FreeError::NotABlock => format!("free({p:#x}): not a block of the device heap (freed twice, or not returned by malloc); a GPU reports CUDA_ERROR_LAUNCH_FAILED"),
                        FreeError::OutsideHeap => format!("free({p:#x}): the pointer is outside the device heap; a GPU reports CUDA_ERROR_ILLEGAL_ADDRESS"),
                    };
                    emit(ctx, &text);
                    // SAFETY: the caller's contract.
                    unsafe { ctx::stop_with_error_at(ctx, msg, inst, lane as u32) };
                    return Err(Stopped);
                }
            }
        }
    }
    emit(ctx, &text);
    Ok(out)
}

/// Appends `text` to the launch's output (stdout when the warp has no sink).
fn emit(ctx: &WarpCtx, text: &[u8]) {
    if text.is_empty() {
        return;
    }
    // SAFETY: `exec`'s contract.
    let env = unsafe { &*ctx.env };
    match &env.output {
        Some(o) => o
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(text),
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(text);
        }
    }
}

/// Checked reads of one lane's memory through generic addresses.
struct Mem<'a> {
    ctx: &'a mut WarpCtx,
    inst: InstId,
    lane: usize,
}

impl Mem<'_> {
    /// Reads `bytes` (1, 4 or 8) at generic address `a`.
    unsafe fn read(&mut self, a: u64, bytes: u32) -> Result<u64, Stopped> {
        let req = AccessReq {
            space: Space::Generic,
            elem_bytes: bytes,
            nvec: 1,
            slot_bytes: 8,
            write: false,
            mask: 1 << self.lane,
            inst: self.inst,
        };
        let mut addrs = [0u64; WARP_SIZE];
        addrs[self.lane] = a;
        let mut data = [0u64; WARP_SIZE];
        // SAFETY: `data` holds 32 slots of 8 bytes; env per the caller's contract.
        unsafe { ctx::access(self.ctx, &req, &addrs, data.as_mut_ptr() as *mut u8)? };
        Ok(data[self.lane])
    }

    /// The NUL-terminated string at `a` (at most [`MAX_STRING`] bytes; an error past).
    unsafe fn cstr(&mut self, a: u64) -> Result<Vec<u8>, Stopped> {
        let mut s = Vec::new();
        loop {
            // SAFETY: as `read`.
            let b = unsafe { self.read(a.wrapping_add(s.len() as u64), 1)? } as u8;
            if b == 0 {
                return Ok(s);
            }
            if s.len() >= MAX_STRING {
                let msg = format!("printf: string at {a:#x} has no NUL within {MAX_STRING} bytes");
                // SAFETY: as `read`.
                unsafe { ctx::stop_with_error_at(self.ctx, msg, self.inst, self.lane as u32) };
                return Err(Stopped);
            }
            s.push(b);
        }
    }
}

/// One lane's `vprintf(fmt, buf)`: appends the text to `out`, returns the number of
/// arguments consumed (-1 for a NULL format).
unsafe fn vprintf(m: &mut Mem, fmt: u64, buf: u64, out: &mut Vec<u8>) -> Result<i32, Stopped> {
    if fmt == 0 {
        return Ok(-1);
    }
    // SAFETY: the caller's contract.
    let f = unsafe { m.cstr(fmt)? };
    let mut off = 0u64;
    let mut nargs = 0u32;
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&c) = f.get(i) {
            match c {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        let mut star_w = false;
        if f.get(i) == Some(&b'*') {
            star_w = true;
            i += 1;
        } else {
            spec.width = digits(&f, &mut i);
        }
        let mut star_p = false;
        if f.get(i) == Some(&b'.') {
            i += 1;
            if f.get(i) == Some(&b'*') {
                star_p = true;
                i += 1;
            } else {
                spec.prec = Some(digits(&f, &mut i));
            }
        }
        let mut long = false;
        while let Some(&c) = f.get(i) {
            match c {
                b'h' => {}
                b'l' | b'L' | b'j' | b'z' | b't' | b'q' => long = true,
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = f.get(i) else {
            out.extend_from_slice(&f[start..]);
            break;
        };
        i += 1;
        if conv == b'%' {
            out.push(b'%');
            continue;
        }
        let size = match conv {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' if !long => 4,
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'c' => 8,
            b's' | b'p' | b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => 8,
            _ => {
                out.extend_from_slice(&f[start..i]);
                continue;
            }
        };
        let stars = star_w as u32 + star_p as u32;
        if nargs + stars + 1 > MAX_ARGS {
            out.extend_from_slice(&f[start..i]);
            continue;
        }
        let mut next = |m: &mut Mem, size: u32| -> Result<u64, Stopped> {
            off = off.next_multiple_of(size as u64);
            // SAFETY: the caller's contract.
            let v = unsafe { m.read(buf.wrapping_add(off), size)? };
            off += size as u64;
            nargs += 1;
            Ok(v)
        };
        if star_w {
            let w = next(m, 4)? as u32 as i32;
            spec.left |= w < 0;
            spec.width = w.unsigned_abs() as usize;
        }
        if star_p {
            let p = next(m, 4)? as u32 as i32;
            spec.prec = (p >= 0).then_some(p as usize);
        }
        let v = next(m, size)?;
        let text = match conv {
            b'd' | b'i' => {
                let x = if long {
                    v as i64
                } else {
                    v as u32 as i32 as i64
                };
                spec.int(x < 0, x.unsigned_abs().to_string(), "")
            }
            b'u' => spec.int(false, v.to_string(), ""),
            b'o' | b'x' | b'X' => {
                let (digs, pre) = match conv {
                    b'o' => (format!("{v:o}"), ""),
                    b'x' => (format!("{v:x}"), if v != 0 && spec.alt { "0x" } else { "" }),
                    _ => (format!("{v:X}"), if v != 0 && spec.alt { "0X" } else { "" }),
                };
                let digs = if conv == b'o' && spec.alt && !digs.starts_with('0') {
                    format!("0{digs}")
                } else {
                    digs
                };
                spec.plus = false;
                spec.space = false;
                spec.int(false, digs, pre)
            }
            b'c' => {
                spec.zero = false;
                spec.pad(vec![v as u8])
            }
            b'p' => {
                spec.zero = false;
                if v == 0 {
                    spec.pad(b"(nil)".to_vec())
                } else {
                    spec.pad(format!("{v:#x}").into_bytes())
                }
            }
            b's' => {
                // SAFETY: the caller's contract.
                let mut s = if v == 0 {
                    b"(null)".to_vec()
                } else {
                    unsafe { m.cstr(v)? }
                };
                if let Some(p) = spec.prec {
                    s.truncate(p);
                }
                spec.zero = false;
                spec.pad(s)
            }
            _ => spec.float(f64::from_bits(v), conv),
        };
        out.extend_from_slice(&text);
    }
    Ok(nargs as i32)
}

fn digits(f: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while let Some(c) = f.get(*i).filter(|c| c.is_ascii_digit()) {
        n = n
            .saturating_mul(10)
            .saturating_add((c - b'0') as usize)
            .min(1 << 20);
        *i += 1;
    }
    n
}

/// A parsed conversion: flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

impl Spec {
    fn sign(&self, neg: bool) -> &'static str {
        if neg {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// Pads `body` with spaces to the width.
    fn pad(&self, body: Vec<u8>) -> Vec<u8> {
        self.pad_num("", "", body)
    }

    /// `sign`, `prefix`, then `body`, padded to the width (zeros between prefix and body
    /// with the `0` flag, else spaces on the left or right).
    fn pad_num(&self, sign: &str, prefix: &str, body: Vec<u8>) -> Vec<u8> {
        let len = sign.len() + prefix.len() + body.len();
        let fill = self.width.saturating_sub(len);
        let mut o = Vec::with_capacity(len + fill);
        if self.left {
            o.extend_from_slice(sign.as_bytes());
            o.extend_from_slice(prefix.as_bytes());
            o.extend_from_slice(&body);
            o.resize(o.len() + fill, b' ');
        } else if self.zero {
            o.extend_from_slice(sign.as_bytes());
            o.extend_from_slice(prefix.as_bytes());
            o.resize(o.len() + fill, b'0');
            o.extend_from_slice(&body);
        } else {
            o.resize(fill, b' ');
            o.extend_from_slice(sign.as_bytes());
            o.extend_from_slice(prefix.as_bytes());
            o.extend_from_slice(&body);
        }
        o
    }

    /// An integer conversion: `digits` is the magnitude.
    fn int(&mut self, neg: bool, digits: String, prefix: &str) -> Vec<u8> {
        let mut d = digits;
        if let Some(p) = self.prec {
            self.zero = false;
            if p == 0 && d == "0" {
                d.clear();
            }
            if d.len() < p {
                d = "0".repeat(p - d.len()) + &d;
            }
        }
        let sign = self.sign(neg);
        self.pad_num(sign, prefix, d.into_bytes())
    }

    /// `%f %F %e %E %g %G %a %A` of `x`.
    fn float(&mut self, x: f64, conv: u8) -> Vec<u8> {
        let upper = conv.is_ascii_uppercase();
        let neg = x.is_sign_negative();
        let sign = self.sign(neg);
        if !x.is_finite() {
            self.zero = false;
            let s = if x.is_nan() { "nan" } else { "inf" };
            let s = if upper {
                s.to_uppercase()
            } else {
                s.to_string()
            };
            return self.pad_num(sign, "", s.into_bytes());
        }
        let a = x.abs();
        let p = self.prec.unwrap_or(6);
        let body = match conv.to_ascii_lowercase() {
            b'f' => fixed(a, p, self.alt),
            b'e' => exp(a, p, self.alt),
            b'g' => {
                let p = p.max(1);
                let e = exp_of(a, p - 1);
                let s = if e < -4 || e >= p as i32 {
                    exp(a, p - 1, self.alt)
                } else {
                    fixed(a, (p as i32 - 1 - e) as usize, self.alt)
                };
                if self.alt {
                    s
                } else {
                    strip_zeros(&s)
                }
            }
            _ => hexf(a, self.prec),
        };
        let body = if upper { body.to_uppercase() } else { body };
        let (prefix, body) = match body.strip_prefix("0x").or(body.strip_prefix("0X")) {
            Some(b) => (if upper { "0X" } else { "0x" }, b.to_string()),
            None => ("", body),
        };
        self.pad_num(sign, prefix, body.into_bytes())
    }
}

/// `%.pf` of `a >= 0`.
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$}");
    if alt && p == 0 {
        s + "."
    } else {
        s
    }
}

/// The decimal exponent of `a` printed with `%.pe`.
fn exp_of(a: f64, p: usize) -> i32 {
    let s = format!("{a:.p$e}");
    s.rsplit('e')
        .next()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0)
}

/// `%.pe` of `a >= 0`: C's form (`1.500000e+02`).
fn exp(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!(
        "{m}{dot}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

/// `%g` without `#`: trailing zeros of the fraction removed (and a trailing point).
fn strip_zeros(s: &str) -> String {
    let (m, e) = match s.find('e') {
        Some(k) => (&s[..k], &s[k..]),
        None => (s, ""),
    };
    let m = if m.contains('.') {
        m.trim_end_matches('0').trim_end_matches('.')
    } else {
        m
    };
    format!("{m}{e}")
}

/// `%a` of `a >= 0` (glibc's form: `0x1.8p+1`; exact without a precision).
fn hexf(a: f64, prec: Option<usize>) -> String {
    let bits = a.to_bits();
    let (mut e, mut mant) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let lead = if e == 0 {
        if mant == 0 {
            e = 1023;
        } else {
            e = 1;
        }
        0u64
    } else {
        1
    };
    let mut lead = lead;
    let exp2 = e - 1023;
    let mut digs = 13usize;
    if let Some(p) = prec.filter(|&p| p < 13) {
        // Round to nearest even at hex digit p.
        let drop = 4 * (13 - p) as u32;
        let full = (lead << 52) | mant;
        let half = 1u64 << (drop - 1);
        let rem = full & ((1u64 << drop) - 1);
        let mut q = full >> drop;
        if rem > half || (rem == half && q & 1 == 1) {
            q += 1;
        }
        let q = q << drop;
        lead = q >> 52;
        mant = q & ((1 << 52) - 1);
        digs = p;
    }
    let mut frac = format!("{mant:013x}");
    frac.truncate(digs);
    if prec.is_none() {
        frac = frac.trim_end_matches('0').to_string();
    } else if let Some(p) = prec {
        while frac.len() < p {
            frac.push('0');
        }
    }
    let dot = if frac.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{dot}{frac}p{}{}",
        if exp2 < 0 { '-' } else { '+' },
        exp2.unsigned_abs()
    )
}
