//! Control flow in the JIT: predication, branches and the dispatcher with divergence
//! bookkeeping (`dispatch`), which blocks need a divergent variant (`divergence`),
//! if-then bodies entered without the dispatcher (`join`), indirect branches (`brx`),
//! loops run lane by lane (`serial`; which loops: `translate::serial_region`), calls
//! (`call`) and split calls (`split`), barriers (`barrier`), the watchdog's loop-header
//! checks (`watchdog`), `--check-uniform` (`uniform`) and the kernel coverage counters
//! (`coverage`).

pub(crate) mod barrier;
pub(crate) mod brx;
pub(crate) mod call;
pub(crate) mod cont;
pub(crate) mod coverage;
pub(crate) mod dispatch;
pub(crate) mod divergence;
pub(crate) mod join;
pub(crate) mod serial;
pub(crate) mod split;
pub(crate) mod uniform;
pub(crate) mod watchdog;
