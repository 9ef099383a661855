//! Typed index vectors: a `Vec` indexed by one kind of id ([`RegId`], [`BlockId`],
//! [`FuncId`], [`GlobalId`], [`InstId`]), so that a register number cannot index the
//! blocks and no caller writes `.0 as usize`.

use super::{BlockId, FuncId, GlobalId, InstId, RegId};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, Index, IndexMut};

/// An id that numbers the elements of an [`IdxVec`].
pub trait Idx: Copy {
    fn from_index(i: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! idx {
    ($($t:ident),*) => {$(
        impl Idx for $t {
            fn from_index(i: usize) -> Self {
                $t(i as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}
idx!(RegId, BlockId, FuncId, GlobalId, InstId);

/// A vector indexed by `I`. It dereferences to the underlying `Vec` (`len`, `iter`,
/// `push`, ...), but indexing and [`IdxVec::get`] take an `I`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IdxVec<I, T> {
    raw: Vec<T>,
    _id: PhantomData<fn(&I)>,
}

impl<I: Idx, T> IdxVec<I, T> {
    pub fn new() -> Self {
        Self::from(Vec::new())
    }
    /// A vector of `n` copies of `v`.
    pub fn from_elem(v: T, n: usize) -> Self
    where
        T: Clone,
    {
        Self::from(vec![v; n])
    }
    pub fn get(&self, i: I) -> Option<&T> {
        self.raw.get(i.index())
    }
    pub fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.raw.get_mut(i.index())
    }
    /// Appends `v` and returns its id.
    pub fn push_id(&mut self, v: T) -> I {
        self.raw.push(v);
        I::from_index(self.raw.len() - 1)
    }
    /// The elements with their ids.
    pub fn iter_enumerated(&self) -> impl Iterator<Item = (I, &T)> {
        self.raw
            .iter()
            .enumerate()
            .map(|(i, v)| (I::from_index(i), v))
    }
    /// The elements with their ids, by value.
    pub fn into_iter_enumerated(self) -> impl Iterator<Item = (I, T)> {
        self.raw
            .into_iter()
            .enumerate()
            .map(|(i, v)| (I::from_index(i), v))
    }
    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = I> {
        (0..self.raw.len()).map(I::from_index)
    }
}

impl<I: Idx, T> Default for IdxVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, T: std::fmt::Debug> std::fmt::Debug for IdxVec<I, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I, T> From<Vec<T>> for IdxVec<I, T> {
    fn from(raw: Vec<T>) -> Self {
        IdxVec {
            raw,
            _id: PhantomData,
        }
    }
}

impl<I, T> FromIterator<T> for IdxVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        Self::from(it.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, I, T> IntoIterator for &'a IdxVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut IdxVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter_mut()
    }
}

impl<I, T> IntoIterator for IdxVec<I, T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.into_iter()
    }
}

impl<I, T> Deref for IdxVec<I, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.raw
    }
}

impl<I, T> DerefMut for IdxVec<I, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.raw
    }
}

impl<I: Idx, T> Index<I> for IdxVec<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.raw[i.index()]
    }
}

impl<I: Idx, T> IndexMut<I> for IdxVec<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.raw[i.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_their_own_vector() {
        let mut v: IdxVec<RegId, &str> = IdxVec::new();
        let a = v.push_id("a");
        let b = v.push_id("b");
        assert_eq!((a, b), (RegId(0), RegId(1)));
        v[b] = "c";
        assert_eq!(v.get(b), Some(&"c"));
        assert_eq!(v.get(RegId(2)), None);
        let all: Vec<_> = v.iter_enumerated().collect();
        assert_eq!(all, vec![(RegId(0), &"a"), (RegId(1), &"c")]);
        assert_eq!(v.ids().collect::<Vec<_>>(), vec![RegId(0), RegId(1)]);
    }
}
