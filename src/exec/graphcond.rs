//! CUDA graph conditional handles as a kernel sees them: `cudaGraphSetConditional(handle,
//! value)` ([`crate::ir::CdpFn::GraphSetConditional`]) sets the value of a handle of the
//! executable graph the kernel was launched from. The driver (crates/libcuda) makes one
//! [`GraphConditions`] per executable graph, holding every handle of the graph and of
//! the graphs nested in it, and passes it with each kernel node's launch
//! ([`crate::LaunchConfig::conditions`]); conditional nodes read the values between
//! kernels. A call with a handle the launch does not have (a kernel not launched from a
//! graph, or a handle of another graph) stops the launch with an error naming the call,
//! as calls with an invalid handle are undefined on a GPU.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The conditional handles of one executable graph and their current values.
#[derive(Debug, Default)]
pub struct GraphConditions {
    values: HashMap<u64, AtomicU32>,
}

impl GraphConditions {
    /// A table of the handles `(handle, initial value)`.
    pub fn new(handles: impl IntoIterator<Item = (u64, u32)>) -> GraphConditions {
        GraphConditions {
            values: handles
                .into_iter()
                .map(|(h, v)| (h, AtomicU32::new(v)))
                .collect(),
        }
    }

    /// The value of `handle`, `None` if the table does not hold it.
    pub fn get(&self, handle: u64) -> Option<u32> {
        self.values.get(&handle).map(|v| v.load(Ordering::Acquire))
    }

    /// Sets `handle` to `value`; false if the table does not hold it.
    pub fn set(&self, handle: u64, value: u32) -> bool {
        match self.values.get(&handle) {
            Some(v) => {
                v.store(value, Ordering::Release);
                true
            }
            None => false,
        }
    }
}

/// A launch's conditional handles ([`crate::LaunchConfig::conditions`]); two are equal
/// when they are the same table.
#[derive(Clone, Debug)]
pub struct ConditionsRef(pub Arc<GraphConditions>);

impl PartialEq for ConditionsRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ConditionsRef {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_get_only_known_handles() {
        let c = GraphConditions::new([(7, 1), (9, 0)]);
        assert_eq!(c.get(7), Some(1));
        assert!(c.set(9, 5));
        assert_eq!(c.get(9), Some(5));
        assert!(!c.set(8, 1));
        assert_eq!(c.get(8), None);
        let (a, b) = (ConditionsRef(Arc::new(c)), ConditionsRef(Arc::default()));
        assert_eq!(a, a.clone());
        assert_ne!(a, b);
    }
}
