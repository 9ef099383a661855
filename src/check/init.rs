//! Initializers of `.global`/`.const` variables: initial bytes and relocations.

use super::{Cx, Layout, ModSym};
use crate::ir::{Loc, Reloc, RelocTarget, Space, Type, VarRef};
use crate::parse::ast::{BinOp, Expr, ExprKind, Init};
use crate::parse::{PtxError, MAX_DEPTH};

/// Number of outermost elements an initializer provides for a leading `[]` dimension;
/// `inner` is the number of scalars per outermost element.
pub fn outer_len(init: &Init, inner: u64) -> u64 {
    match init {
        Init::List(items, _) => {
            if items.iter().any(|i| matches!(i, Init::List(..))) {
                items.len() as u64
            } else {
                (items.len() as u64).div_ceil(inner.max(1))
            }
        }
        Init::Expr(_) | Init::Field(..) => 1,
    }
}

impl Cx<'_> {
    /// Encodes an initializer into `lay.size()` bytes and its relocations.
    pub fn encode_init(
        &self,
        init: &Init,
        lay: &Layout,
        dims: &[Option<Expr>],
        vec: u32,
    ) -> Result<(Vec<u8>, Vec<Reloc>), PtxError> {
        let count = lay.count.unwrap_or(0);
        if lay.elem == Type::Pred {
            return Err(self.err(init_loc(init), "predicate variables cannot be initialized"));
        }
        // Shape: the array dimensions, then the vector lanes.
        let mut shape = Vec::new();
        let mut known: u64 = vec.max(1) as u64;
        for d in dims.iter().flatten() {
            known = known.saturating_mul(self.eval_int(d)?.max(1) as u64);
        }
        for d in dims {
            shape.push(match d {
                Some(e) => self.eval_int(e)?.max(1) as u64,
                None => count / known.max(1),
            });
        }
        if vec > 1 {
            shape.push(vec as u64);
        }
        let mut strides = vec![1u64; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1].saturating_mul(shape[i + 1]);
        }
        let mut st = Fill {
            bytes: vec![0u8; lay.size() as usize],
            relocs: Vec::new(),
            masks: Vec::new(),
            elem: lay.elem,
            count,
        };
        if shape.is_empty() {
            // A scalar may be initialized with `{v}` as well as `v`.
            shape.push(1);
            strides.push(1);
        }
        match init {
            Init::Expr(e) => {
                if count != 1 {
                    return Err(self.err(e.loc, "an array initializer must be a '{...}' list"));
                }
                self.put(&mut st, e, 0)?;
            }
            Init::List(..) => self.fill(&mut st, init, &shape, &strides, 0, 0, 0)?,
            Init::Field(n, _) => {
                return Err(self.err(n.loc, "a field initializer needs an opaque type"))
            }
        }
        self.mask_relocs(&mut st)?;
        Ok((st.bytes, st.relocs))
    }

    #[allow(clippy::too_many_arguments)]
    fn fill(
        &self,
        st: &mut Fill,
        init: &Init,
        shape: &[u64],
        strides: &[u64],
        level: usize,
        base: u64,
        depth: u32,
    ) -> Result<(), PtxError> {
        if depth > MAX_DEPTH {
            return Err(self.err(init_loc(init), "initializer nested too deeply"));
        }
        let Init::List(items, loc) = init else {
            return Err(self.err(init_loc(init), "expected an initializer list"));
        };
        let (Some(&extent), Some(&stride)) = (shape.get(level), strides.get(level)) else {
            return Err(self.err(*loc, "too many levels of braces in initializer"));
        };
        let end = base.saturating_add(extent.saturating_mul(stride));
        let mut pos = base;
        for item in items {
            match item {
                Init::List(..) => {
                    if pos.saturating_add(stride) > end {
                        return Err(self.err(init_loc(item), "too many initializers"));
                    }
                    self.fill(st, item, shape, strides, level + 1, pos, depth + 1)?;
                    pos += stride;
                }
                Init::Expr(e) => {
                    if pos >= end || pos >= st.count {
                        return Err(self.err(e.loc, "too many initializers"));
                    }
                    self.put(st, e, pos)?;
                    pos += 1;
                }
                Init::Field(n, _) => {
                    return Err(self.err(n.loc, "a field initializer needs an opaque type"))
                }
            }
        }
        Ok(())
    }

    /// The relocation target of a symbol used in an initializer.
    fn reloc_target(&self, name: &str, loc: Loc) -> Result<RelocTarget, PtxError> {
        match self.syms.get(name) {
            Some(ModSym::Func(f)) => Ok(RelocTarget::Func(*f)),
            Some(ModSym::Var(v)) => match (v.space, v.vref) {
                (Space::Global | Space::Const, VarRef::Global(g)) => Ok(RelocTarget::Global(g)),
                _ => Err(self.err(
                    loc,
                    format!("the address of '{name}' cannot be used in an initializer (not supported yet)"),
                )),
            },
            None => Err(self.err(loc, format!("unknown symbol '{name}'"))),
        }
    }

    /// Writes one element (a constant, an address or a masked byte of an address) at
    /// element index `idx`.
    fn put(&self, st: &mut Fill, e: &Expr, idx: u64) -> Result<(), PtxError> {
        let size = st.elem.bytes() as u64;
        let off = idx.saturating_mul(size);
        if let ExprKind::Mask(mask, inner) = &e.kind {
            let Some((name, addend, loc)) = address_expr(self, inner)? else {
                return Err(self.err(
                    e.loc,
                    "an address mask needs an address ('0xFF(generic(var))')",
                ));
            };
            let target = self.reloc_target(&name, loc)?;
            let byte = (0..8u32).find(|k| *mask == 0xFFu64 << (8 * k));
            match byte {
                Some(k) if size == 1 => st.masks.push(MaskByte {
                    offset: off,
                    byte: k,
                    target,
                    addend,
                    loc: e.loc,
                }),
                _ => {
                    return Err(self.err(
                        e.loc,
                        format!(
                            "address mask {mask:#x} on type {} is not supported yet",
                            st.elem
                        ),
                    ))
                }
            }
            return Ok(());
        }
        if let Some((name, addend, loc)) = address_expr(self, e)? {
            let target = self.reloc_target(&name, loc)?;
            if size != 4 && size != 8 {
                return Err(self.err(
                    loc,
                    format!("an address needs a 32- or 64-bit element, not {}", st.elem),
                ));
            }
            st.relocs.push(Reloc {
                offset: off,
                size: size as u8,
                target,
                addend,
            });
            return Ok(());
        }
        let c = self.eval(e)?;
        let bits = self.const_bits(c, st.elem, e.loc)?;
        let bytes = bits.to_le_bytes();
        let (start, end) = (off as usize, (off + size) as usize);
        if let (Some(dst), Some(src)) = (st.bytes.get_mut(start..end), bytes.get(..size as usize)) {
            dst.copy_from_slice(src);
        }
        Ok(())
    }

    /// Turns runs of eight masked bytes `0xFF(a), 0xFF00(a), ..., 0xFF00000000000000(a)`
    /// into 8-byte relocations; anything else is not supported.
    fn mask_relocs(&self, st: &mut Fill) -> Result<(), PtxError> {
        let masks = std::mem::take(&mut st.masks);
        let mut used = vec![false; masks.len()];
        // Each byte offset holds one element, so offsets identify the mask bytes.
        let by_offset: std::collections::HashMap<u64, usize> = masks
            .iter()
            .enumerate()
            .map(|(j, n)| (n.offset, j))
            .collect();
        for (i, m) in masks.iter().enumerate() {
            if m.byte != 0 || used[i] {
                continue;
            }
            let mut run = vec![i];
            for k in 1..8u32 {
                let next = by_offset.get(&(m.offset + k as u64)).copied().filter(|&j| {
                    let n = &masks[j];
                    !used[j] && n.byte == k && n.target == m.target && n.addend == m.addend
                });
                match next {
                    Some(j) => run.push(j),
                    None => break,
                }
            }
            if run.len() == 8 {
                for j in run {
                    used[j] = true;
                }
                st.relocs.push(Reloc {
                    offset: m.offset,
                    size: 8,
                    target: m.target,
                    addend: m.addend,
                });
            }
        }
        if let Some(m) = masks.iter().zip(&used).find(|(_, u)| !**u).map(|(m, _)| m) {
            return Err(self.err(
                m.loc,
                "a partial address (byte mask) in an initializer is not supported yet",
            ));
        }
        Ok(())
    }
}

/// One `0xFF..(addr)` byte of an initializer.
struct MaskByte {
    offset: u64,
    byte: u32,
    target: RelocTarget,
    addend: i64,
    loc: Loc,
}

struct Fill {
    bytes: Vec<u8>,
    relocs: Vec<Reloc>,
    masks: Vec<MaskByte>,
    elem: Type,
    count: u64,
}

fn init_loc(i: &Init) -> crate::ir::Loc {
    i.loc()
}

/// `sym`, `generic(sym)`, `sym+k`, `sym-k`, `k+sym`: the symbol and addend.
fn address_expr(cx: &Cx, e: &Expr) -> Result<Option<(String, i64, crate::ir::Loc)>, PtxError> {
    match &e.kind {
        ExprKind::Sym { name, comp: None } if name != "WARP_SZ" => {
            Ok(Some((name.clone(), 0, e.loc)))
        }
        ExprKind::Generic(id) => Ok(Some((id.name.clone(), 0, id.loc))),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            if let Some((n, k, l)) = address_expr(cx, a)? {
                let c = cx.eval_int(b)?;
                return Ok(Some((
                    n,
                    if *op == BinOp::Add {
                        k.wrapping_add(c)
                    } else {
                        k.wrapping_sub(c)
                    },
                    l,
                )));
            }
            if *op == BinOp::Add {
                if let Some((n, k, l)) = address_expr(cx, b)? {
                    let c = cx.eval_int(a)?;
                    return Ok(Some((n, k.wrapping_add(c), l)));
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}
