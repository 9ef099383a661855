//! The sanitizers' view of the asynchronous operations of `crate::exec::asyncop` and
//! `crate::exec::bulk`: bytes an async copy (`cp.async`, `cp.async.bulk`, a bulk
//! multicast, `st.async`) writes count as written for initcheck, whichever proxy wrote
//! them. The copy is not a thread's access for racecheck (its completion is what the
//! program waits for), so it leaves the race shadow alone.

use super::{Sanitizer, WarpView};

impl Sanitizer {
    /// An async copy of the warp `w` wrote `[h, h+len)` (a host address checked to be
    /// valid): in the CTA's shared window or in device memory, initcheck counts the
    /// bytes as written.
    pub fn async_written(&self, w: &WarpView, h: u64, len: u64) {
        if !self.opts.initcheck || len == 0 {
            return;
        }
        if h >= w.shared_base && h < w.shared_base + w.shared_size {
            let o = h - w.shared_base;
            let n = len.min(w.shared_size - o);
            self.state().shared_init.set(o, n);
        } else {
            let mut init = self.init.lock().unwrap_or_else(|e| e.into_inner());
            init.mark(h, len);
        }
    }
}
