//! Sanitizer reports: [`Finding`] is a located finding (kernel, `file:line:col`, opcode,
//! block, thread, address, and for races and barriers the other access), built from the
//! exec layer's `RawFinding`s; [`Report`] is a launch's or a device's list of them, as
//! text or JSON.

use crate::exec::sanitize::{FindingKind, RawFinding};
use crate::ir::{self, InstId, Space};
use std::fmt;

/// Where an instruction is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// The instruction's opcode with modifiers, e.g. `ld.shared.f32`.
    pub inst: String,
}

impl SourceLoc {
    fn of(m: &ir::Module, inst: InstId) -> SourceLoc {
        let info = m.inst_info.get(inst);
        SourceLoc {
            file: m.file.clone(),
            line: info.map_or(0, |i| i.loc.line),
            col: info.map_or(0, |i| i.loc.col),
            inst: info.map_or_else(String::new, |i| i.text.clone()),
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{} (`{}`)",
            self.file, self.line, self.col, self.inst
        )
    }
}

/// The other access of a race or barrier finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtherSite {
    pub at: SourceLoc,
    pub thread: [u32; 3],
    pub write: bool,
    pub atomic: bool,
}

/// What findings are deduplicated by: kind, instruction, other instruction, and the
/// address of a leak without a location (each leaked allocation is its own finding).
type FindingKey = (
    FindingKind,
    Option<(String, u32, u32)>,
    Option<(u32, u32)>,
    Option<u64>,
);

/// One located sanitizer finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    /// The kernel (empty for leaks).
    pub kernel: String,
    /// The instruction (`None` for leaks).
    pub at: Option<SourceLoc>,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub addr: u64,
    pub space: Space,
    pub size: u32,
    pub write: bool,
    pub atomic: bool,
    pub other: Option<OtherSite>,
    pub detail: String,
}

impl Finding {
    /// Locates a raw finding of kernel `kernel` of module `m`.
    pub fn locate(m: &ir::Module, kernel: &str, r: &RawFinding) -> Finding {
        Finding {
            kind: r.kind,
            kernel: kernel.to_string(),
            at: r.inst.map(|i| SourceLoc::of(m, i)),
            block: r.block,
            thread: r.thread,
            addr: r.addr,
            space: r.space,
            size: r.size,
            write: r.write,
            atomic: r.atomic,
            other: r.other.map(|o| OtherSite {
                at: SourceLoc::of(m, o.inst),
                thread: o.thread,
                write: o.write,
                atomic: o.atomic,
            }),
            detail: r.detail.clone(),
        }
    }

    /// A device allocation still live when the device is destroyed.
    pub fn leak(addr: u64, size: u64) -> Finding {
        Finding {
            kind: FindingKind::Leak,
            kernel: String::new(),
            at: None,
            block: [0; 3],
            thread: [0; 3],
            addr,
            space: Space::Global,
            size: size.min(u32::MAX as u64) as u32,
            write: false,
            atomic: false,
            other: None,
            detail: format!("{size} bytes allocated at {addr:#x} were never freed"),
        }
    }

    /// The key findings are deduplicated by (kind and instruction pair); leaks with no
    /// location (host `cuMemAlloc`s, device-heap blocks of unsanitized launches) have no
    /// instruction, so their address tells them apart.
    fn key(&self) -> FindingKey {
        (
            self.kind,
            self.at.as_ref().map(|a| (a.file.clone(), a.line, a.col)),
            self.other.as_ref().map(|o| (o.at.line, o.at.col)),
            (self.kind == FindingKind::Leak && self.at.is_none()).then_some(self.addr),
        )
    }

    fn access_word(write: bool, atomic: bool) -> &'static str {
        match (atomic, write) {
            (true, _) => "atomic",
            (false, true) => "write",
            (false, false) => "read",
        }
    }

    /// The finding as one JSON object.
    pub fn to_json(&self) -> String {
        let loc = |a: &SourceLoc| {
            format!(
                "{{\"file\":{},\"line\":{},\"col\":{},\"inst\":{}}}",
                json_str(&a.file),
                a.line,
                a.col,
                json_str(&a.inst)
            )
        };
        let dim = |d: [u32; 3]| format!("[{},{},{}]", d[0], d[1], d[2]);
        let mut s = format!(
            "{{\"checker\":\"{}\",\"kind\":\"{}\",\"kernel\":{},\"at\":{},\"block\":{},\"thread\":{},\"address\":{},\"space\":\"{}\",\"size\":{},\"access\":\"{}\"",
            self.kind.checker(),
            self.kind.name(),
            json_str(&self.kernel),
            self.at.as_ref().map_or("null".into(), loc),
            dim(self.block),
            dim(self.thread),
            self.addr,
            self.space.name(),
            self.size,
            Finding::access_word(self.write, self.atomic)
        );
        if let Some(o) = &self.other {
            s += &format!(
                ",\"other\":{{\"at\":{},\"thread\":{},\"access\":\"{}\"}}",
                loc(&o.at),
                dim(o.thread),
                Finding::access_word(o.write, o.atomic)
            );
        }
        s += &format!(",\"detail\":{}}}", json_str(&self.detail));
        s
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |v: [u32; 3]| format!("({},{},{})", v[0], v[1], v[2]);
        if self.kind == FindingKind::Leak && self.at.is_some() {
            return write!(
                f,
                "{}: {}: {} (malloc in kernel '{}' at {}: block {}, thread {})",
                self.kind.checker(),
                self.kind.name(),
                self.detail,
                self.kernel,
                self.at
                    .as_ref()
                    .map_or_else(|| "?".into(), |a| a.to_string()),
                d(self.block),
                d(self.thread)
            );
        }
        if self.kind == FindingKind::Leak {
            return write!(
                f,
                "{}: {}: {}",
                self.kind.checker(),
                self.kind.name(),
                self.detail
            );
        }
        write!(
            f,
            "{}: {} in kernel '{}' at {}",
            self.kind.checker(),
            self.kind.name(),
            self.kernel,
            self.at
                .as_ref()
                .map_or_else(|| "?".into(), |a| a.to_string())
        )?;
        write!(f, ": block {}, thread {}", d(self.block), d(self.thread))?;
        if self.size > 0 {
            write!(
                f,
                ", {}-byte {} of {} address {:#x}",
                self.size,
                Finding::access_word(self.write, self.atomic),
                self.space.name(),
                self.addr
            )?;
        }
        if let Some(o) = &self.other {
            if self.kind.checker() == "synccheck" {
                write!(f, "; other arrival: thread {} at {}", d(o.thread), o.at)?;
            } else {
                write!(
                    f,
                    "; other access: {} by thread {} at {}",
                    Finding::access_word(o.write, o.atomic),
                    d(o.thread),
                    o.at
                )?;
            }
        }
        if !self.detail.is_empty() {
            write!(f, " [{}]", self.detail)?;
        }
        Ok(())
    }
}

/// A list of findings, deduplicated by kind and instruction pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub findings: Vec<Finding>,
}

impl Report {
    /// Adds `f` unless a finding with the same kind and instruction pair is there.
    pub fn add(&mut self, f: Finding) {
        if !self.findings.iter().any(|g| g.key() == f.key()) {
            self.findings.push(f);
        }
    }
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }
    /// `{"findings":[...]}`.
    pub fn to_json(&self) -> String {
        let items: Vec<String> = self.findings.iter().map(Finding::to_json).collect();
        format!("{{\"findings\":[{}]}}", items.join(","))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "ptxjit sanitizer: {} finding(s)", self.findings.len())?;
        for x in &self.findings {
            writeln!(f, "{x}")?;
        }
        Ok(())
    }
}

/// synccheck's view of one CTA's barriers (driven by the CTA scheduler): threads waiting
/// at one generation of a CTA-wide barrier (no thread count) from different instructions
/// (a barrier in divergent code), and more arrivals than a barrier's thread count; every
/// completion also advances racecheck's epoch. Threads that exited before a barrier are
/// not a finding: PTX barriers wait for the non-exited threads only.
pub(crate) struct BarrierCheck {
    san: std::sync::Arc<crate::exec::sanitize::Sanitizer>,
    ctaid: [u32; 3],
    /// The first arrival of each barrier's current generation: instruction and thread.
    first: [Option<(InstId, [u32; 3])>; 16],
}

impl BarrierCheck {
    pub(crate) fn new(
        san: std::sync::Arc<crate::exec::sanitize::Sanitizer>,
        ctaid: [u32; 3],
    ) -> BarrierCheck {
        BarrierCheck {
            san,
            ctaid,
            first: [None; 16],
        }
    }

    fn finding(&self, kind: FindingKind, inst: InstId, thread: [u32; 3]) -> RawFinding {
        RawFinding {
            kind,
            inst: Some(inst),
            block: self.ctaid,
            thread,
            addr: 0,
            space: Space::Generic,
            size: 0,
            write: false,
            atomic: false,
            other: None,
            detail: String::new(),
        }
    }

    /// Threads (the first is `thread`) arrived at barrier `id` from `inst`; `arrived`:
    /// the generation's arrivals so far, `count`: its thread count if it has one; `wait`:
    /// they wait (not `bar.arrive`, which producer/consumer code pairs with a `bar.sync`
    /// elsewhere).
    pub(crate) fn arrival(
        &mut self,
        id: usize,
        inst: InstId,
        thread: [u32; 3],
        arrived: u32,
        count: Option<u32>,
        wait: bool,
    ) {
        if !self.san.opts.synccheck {
            return;
        }
        match self.first[id] {
            _ if count.is_some() || !wait => {}
            None => self.first[id] = Some((inst, thread)),
            Some((i, t)) if i != inst => {
                let mut f = self.finding(FindingKind::DivergentBarrier, inst, thread);
                f.other = Some(crate::exec::sanitize::OtherAccess {
                    inst: i,
                    thread: t,
                    write: false,
                    atomic: false,
                });
                f.detail = format!(
                    "threads of the CTA wait at barrier {id} at two different instructions \
                     (a barrier in divergent code)"
                );
                self.san.report(f);
            }
            Some(_) => {}
        }
        if let Some(c) = count.filter(|&c| arrived > c) {
            let mut f = self.finding(FindingKind::BarrierCount, inst, thread);
            f.detail =
                format!("{arrived} threads arrived at barrier {id} whose thread count is {c}");
            self.san.report(f);
        }
    }

    /// Barrier `id` completed: a new generation starts.
    pub(crate) fn completed(&mut self, id: usize) {
        self.san.barrier_completed(self.ctaid);
        self.first[id] = None;
    }

    /// Whether the launch must stop now (a finding, not report-only).
    pub(crate) fn must_stop(&self) -> bool {
        !self.san.opts.report_only && self.san.found()
    }
}

/// The sanitizer variant of a module's JIT code, made on first use (its kernels are
/// compiled as the normal code's are: at their first launch unless `jit_eager`).
pub(crate) fn instrumented_jit(
    module: &super::device::Module,
) -> Result<&crate::jit::JitModule, String> {
    let inner = &module.inner;
    inner
        .jit_san
        .get_or_init(|| {
            let eager = inner.device.inner.opts.jit_eager;
            crate::jit::JitModule::instrumented(&inner.ir, &inner.layout, eager)
                .map_err(|e| format!("cannot compile the sanitizer variant: {e}"))
        })
        .as_ref()
        .map_err(|e| e.clone())
}

/// The sanitizer state of a launch with `shared_size` bytes of shared memory per CTA
/// and `local_size` bytes of `.local` memory per thread.
pub(crate) fn launch_sanitizer(
    mem: &super::memory::DeviceMemory,
    opts: crate::config::SanitizeOptions,
    shared_size: u64,
    local_size: u64,
    heap: Option<std::sync::Arc<crate::exec::heap::DeviceHeap>>,
    used_bytes: std::collections::BTreeMap<InstId, u32>,
) -> std::sync::Arc<crate::exec::sanitize::Sanitizer> {
    if let Some(h) = heap.as_ref().filter(|_| opts.memcheck) {
        h.set_quarantine(true);
    }
    std::sync::Arc::new(
        crate::exec::sanitize::Sanitizer::new(
            opts,
            mem.init.clone(),
            if opts.memcheck {
                mem.freed()
            } else {
                Vec::new()
            },
            shared_size,
            local_size,
        )
        .with_heap(heap.map(|h| h as std::sync::Arc<dyn crate::exec::sanitize::HeapBlocks>))
        .with_used_bytes(used_bytes),
    )
}

/// A launch's region table: under memcheck, the device heap stays out of the region
/// caches (each of its accesses is checked against the heap's blocks).
pub(crate) fn region_table(
    t: crate::exec::region::RegionTable,
    san: Option<&crate::exec::sanitize::Sanitizer>,
) -> crate::exec::region::RegionTable {
    match san.and_then(|s| s.heap()) {
        Some(h) => {
            let (lo, hi) = h.range();
            t.with_uncached(lo, hi)
        }
        None => t,
    }
}

/// memcheck's leaks of the device heap: its live blocks, each located at its `malloc`
/// when a sanitized launch made it.
pub(crate) fn heap_leaks(slot: &super::device::HeapSlot) -> Vec<Finding> {
    let Some(h) = &slot.heap else {
        return Vec::new();
    };
    h.live_blocks()
        .into_iter()
        .map(|(a, len)| match slot.leak_sites.get(&a) {
            Some(f) if f.size as u64 == len.min(u32::MAX as u64) => f.clone(),
            _ => {
                let mut f = Finding::leak(a, len);
                f.detail =
                    format!("{len} bytes malloc'd on the device heap at {a:#x} were never freed");
                f
            }
        })
        .collect()
}

/// After a sanitized launch: the `malloc` sites of the blocks it left live, kept for
/// leak reports.
fn keep_malloc_sites(
    dev: &super::device::Device,
    module: &super::device::Module,
    kernel: &str,
    san: &crate::exec::sanitize::Sanitizer,
) {
    let sites = san.take_mallocs();
    if sites.is_empty() {
        return;
    }
    dev.with_heap_slot(|slot| {
        let live: std::collections::HashSet<u64> = match &slot.heap {
            Some(h) => h.live_blocks().into_iter().map(|(a, _)| a).collect(),
            None => return,
        };
        for (a, site) in sites {
            if !live.contains(&a) {
                continue;
            }
            let mut f = Finding::leak(a, site.len);
            f.kernel = kernel.to_string();
            f.at = Some(SourceLoc::of(module.ir(), site.inst));
            f.block = site.block;
            f.thread = site.thread;
            f.detail = format!(
                "{} bytes malloc'd on the device heap at {a:#x} were never freed",
                site.len
            );
            slot.leak_sites.insert(a, f);
        }
    });
}

/// After a launch: without initcheck, every allocation counts as written from now on
/// (the launch's stores were not tracked); with a sanitizer, its findings fail the launch
/// (the first one is the error) or, report-only, go to the device's report.
pub(crate) fn finish_launch(
    dev: &super::device::Device,
    module: &super::device::Module,
    kernel: &str,
    san: Option<&crate::exec::sanitize::Sanitizer>,
    result: super::error::Result<()>,
) -> super::error::Result<()> {
    if !san.is_some_and(|s| s.opts.initcheck) {
        dev.inner
            .mem
            .init
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .mark_all();
    }
    let Some(san) = san else { return result };
    keep_malloc_sites(dev, module, kernel, san);
    let found: Vec<Finding> = san
        .take_findings()
        .iter()
        .map(|r| Finding::locate(module.ir(), kernel, r))
        .collect();
    if found.is_empty() {
        return result;
    }
    if !san.opts.report_only {
        if let Some(first) = found.into_iter().next() {
            return Err(super::error::Error::Sanitizer(Box::new(first)));
        }
        return result;
    }
    let mut rep = dev.inner.findings.lock().unwrap_or_else(|e| e.into_inner());
    for f in found {
        rep.add(f);
    }
    result
}
