//! Fat binaries (`fatbinary`'s containers, what nvcc embeds and the CUDA runtime
//! registers): the PTX inside them, decompressed where the producer compressed it.
//!
//! A container is a 16-byte header (magic `0xBA55ED50`, version, header size, size of
//! the entries) followed by entries, each a 64-byte header and a payload:
//!
//! | offset | field                                  |
//! |--------|----------------------------------------|
//! | 0      | kind (u16): 1 PTX, 2 ELF (cubin)       |
//! | 4      | header size (u32)                      |
//! | 8      | payload size in the file (u64)         |
//! | 16     | compressed size (u32)                  |
//! | 28     | target `sm_XX` (u32)                   |
//! | 40     | flags (u64): 0x2000 LZ4, 0x8000 Zstd   |
//! | 56     | uncompressed size (u64)                |
//!
//! The header may be longer than 64 bytes (nvcc 13 writes 80); the payload follows
//! it. The PTX entry for the highest target is used (ptxjit runs any PTX version it
//! checks). Compressed payloads are decompressed: raw LZ4 blocks (nvcc 12's
//! `-Xfatbin -compress-all`, libraries such as CuPy's), by this module, and Zstd frames
//! (nvcc 13's default), by the `ruzstd` crate.

/// Container magic.
pub const MAGIC: u32 = 0xBA55_ED50;
const KIND_PTX: u16 = 1;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;

/// One entry of a container.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    pub kind: u16,
    pub sm: u32,
    pub flags: u64,
    pub uncompressed: u64,
    /// The payload as stored (compressed bytes when compressed).
    pub payload: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The size of the container at the start of `b` (header included), if it is one.
pub fn container_size(b: &[u8]) -> Option<usize> {
    if u32_at(b, 0)? != MAGIC {
        return None;
    }
    let header = u16_at(b, 6)? as usize;
    usize::try_from(u64_at(b, 8)?).ok()?.checked_add(header)
}

/// The entries of the containers laid end to end at the start of `b` (a `.nv_fatbin`
/// section may hold several, each 8-byte aligned).
pub fn entries(b: &[u8]) -> Result<Vec<Entry<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while let Some(size) = b.get(at..).and_then(container_size) {
        let end = at
            .checked_add(size)
            .filter(|&e| e <= b.len())
            .ok_or("fat binary container extends past its image")?;
        let header = u16_at(b, at + 6).ok_or("truncated fat binary")? as usize;
        let mut p = at + header;
        while p + 64 <= end {
            let h = &b[p..end];
            let bad = || format!("malformed fat binary entry at byte {p}");
            let hsize = u32_at(h, 4).ok_or_else(bad)? as usize;
            if hsize < 64 {
                return Err(format!(
                    "fat binary entry at byte {p} has a {hsize}-byte header"
                ));
            }
            let psize = usize::try_from(u64_at(h, 8).ok_or_else(bad)?).map_err(|_| bad())?;
            let flags = u64_at(h, 40).ok_or_else(bad)?;
            let compressed = u32_at(h, 16).ok_or_else(bad)? as usize;
            let stored = if flags & (FLAG_LZ4 | FLAG_ZSTD) != 0 && compressed != 0 {
                compressed.min(psize)
            } else {
                psize
            };
            let payload = h
                .get(hsize..hsize.checked_add(stored).ok_or_else(bad)?)
                .ok_or_else(bad)?;
            out.push(Entry {
                kind: u16_at(h, 0).ok_or_else(bad)?,
                sm: u32_at(h, 28).ok_or_else(bad)?,
                flags,
                uncompressed: u64_at(h, 56).ok_or_else(bad)?,
                payload,
            });
            p = p
                .checked_add(hsize)
                .and_then(|x| x.checked_add(psize))
                .ok_or_else(bad)?;
        }
        at = end.next_multiple_of(8);
    }
    Ok(out)
}

/// Why no PTX could be had from a fat binary.
#[derive(Debug, PartialEq, Eq)]
pub enum NoPtx {
    /// The container holds no PTX entry (only cubins, which ptxjit cannot run).
    NoEntry,
    /// A malformed container or compressed payload.
    Malformed(String),
}

/// The text of the PTX entry with the highest target in the fat binary at the start of
/// `b`.
pub fn ptx(b: &[u8]) -> Result<String, NoPtx> {
    let all = entries(b).map_err(NoPtx::Malformed)?;
    let best = all
        .iter()
        .filter(|e| e.kind == KIND_PTX)
        .max_by_key(|e| e.sm)
        .ok_or(NoPtx::NoEntry)?;
    let size = || {
        usize::try_from(best.uncompressed)
            .ok()
            .filter(|&n| n <= MAX_PTX)
            .ok_or_else(|| {
                NoPtx::Malformed(format!("uncompressed size {} too large", best.uncompressed))
            })
    };
    let bytes = if best.flags & FLAG_ZSTD != 0 {
        zstd(best.payload, size()?).map_err(NoPtx::Malformed)?
    } else if best.flags & FLAG_LZ4 != 0 {
        lz4_block(best.payload, size()?).map_err(NoPtx::Malformed)?
    } else {
        best.payload.to_vec()
    };
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
}

/// Largest decompressed PTX accepted (a bound on what a header can make us allocate).
pub const MAX_PTX: usize = 1 << 30;

/// Decompresses Zstd frames whose decompressed size is `size`.
pub fn zstd(src: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; size];
    let n = ruzstd::decoding::FrameDecoder::new()
        .decode_all(src, &mut out)
        .map_err(|e| format!("corrupt Zstd payload: {e}"))?;
    if n != size {
        return Err(format!("corrupt Zstd payload: {n} bytes instead of {size}"));
    }
    Ok(out)
}

/// Decompresses one raw LZ4 block whose decompressed size is `size`.
pub fn lz4_block(src: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(size.min(1 << 30));
    let mut i = 0usize;
    let bad = |what: &str| format!("corrupt LZ4 block: {what}");
    let length = |i: &mut usize, mut n: usize| -> Result<usize, String> {
        if n == 15 {
            loop {
                let b = *src.get(*i).ok_or_else(|| bad("truncated length"))?;
                *i += 1;
                n = n
                    .checked_add(b as usize)
                    .ok_or_else(|| bad("length overflow"))?;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    while i < src.len() {
        let token = src[i];
        i += 1;
        let lit = length(&mut i, (token >> 4) as usize)?;
        let lits = src
            .get(i..i.checked_add(lit).ok_or_else(|| bad("literal overflow"))?)
            .ok_or_else(|| bad("literals past the end"))?;
        if out.len() + lit > size {
            return Err(bad("output longer than announced"));
        }
        out.extend_from_slice(lits);
        i += lit;
        if i == src.len() {
            break;
        }
        let off = u16_at(src, i).ok_or_else(|| bad("truncated offset"))? as usize;
        i += 2;
        if off == 0 || off > out.len() {
            return Err(bad("match offset out of range"));
        }
        let len = length(&mut i, (token & 15) as usize)? + 4;
        if out.len() + len > size {
            return Err(bad("output longer than announced"));
        }
        let start = out.len() - off;
        // Byte by byte: a match may overlap the bytes it produces.
        for k in 0..len {
            let b = out[start + k];
            out.push(b);
        }
    }
    if out.len() != size {
        return Err(bad(&format!("{} bytes instead of {size}", out.len())));
    }
    Ok(out)
}
