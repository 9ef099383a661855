//! The sanitizers' view of the asynchronous operations of `crate::exec::asyncop` and
//! `crate::exec::bulk`: bytes an async copy (`cp.async`, `cp.async.bulk`, a bulk
//! multicast, `st.async`) writes count as written for initcheck, whichever proxy wrote
//! them, in any CTA of the cluster. The copy is not a thread's access for racecheck (its completion is what the
//! program waits for), so it leaves the race shadow alone.

use super::{Sanitizer, WarpView};

impl Sanitizer {
    /// An async copy of the warp `w` wrote `[h, h+len)` (a host address checked to be
    /// valid): in a shared window of the cluster or in device memory, initcheck counts
    /// the bytes as written.
    pub fn async_written(&self, w: &WarpView, h: u64, len: u64) {
        if !self.opts.initcheck || len == 0 {
            return;
        }
        let mut s = self.state();
        let own = (h >= w.shared_base && h < w.shared_base + w.shared_size)
            .then(|| w.rank as u64 * s.shared_stride + h - w.shared_base);
        if let Some(o) = own.or_else(|| s.remote_shared(w, h)) {
            // (Not past the end of the window the copy starts in.)
            let end = (o / s.shared_stride.max(1)) * s.shared_stride + self.shared_size;
            let n = len.min(end.saturating_sub(o));
            s.shared_init.set(o, n);
        } else {
            drop(s);
            let mut init = self.init.lock().unwrap_or_else(|e| e.into_inner());
            init.mark(h, len);
        }
    }
}
