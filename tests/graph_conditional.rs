//! `cudaGraphSetConditional` (CUDA graph conditional handles) through the Rust API, on
//! both backends: the nvcc 13.5 kernels of crates/libcuda/tests/ptx/graph_cond.cu call
//! it as `.extern .func cudaGraphSetConditional(.param .b64, .param .b32)`, a built-in
//! that sets a handle of the launch's `LaunchConfig::conditions`; a handle the launch
//! does not have (or a launch without conditions) stops the kernel with an error naming
//! the call's line. Expected values: the values the test passes, and `loop_step`'s
//! `counter + 1 < n` worked by hand in the comments.
#[macro_use]
mod common;
use common::*;
use ptxjit::{ConditionsRef, GraphConditions};
use std::sync::Arc;

const PTX: &str = "crates/libcuda/tests/ptx/graph_cond.ptx";
const H: u64 = 0x7d00_0000_0000_0042;

fn with_conditions(mut c: LaunchConfig, table: &Arc<GraphConditions>) -> LaunchConfig {
    c.conditions = Some(ConditionsRef(table.clone()));
    c
}

fn sets_handles(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, PTX, backend);
    let table = Arc::new(GraphConditions::new([(H, 0), (H + 1, 9)]));
    let c = with_conditions(cfg([1, 1, 1], [32, 1, 1], backend), &table);
    let args = [KernelArg::U64(H), KernelArg::U32(7)];
    launch(&dev, &m, "set_cond", &c, &args, "set_cond");
    assert_eq!((table.get(H), table.get(H + 1)), (Some(7), Some(9)));
    // loop_step with n = 3: counter 0 -> 1, handle = (1 < 3) = 1; then 2 -> 1; 3 -> 0.
    let counter = zeroed(&dev, 4);
    let args = [arg(&counter), KernelArg::U32(3), KernelArg::U64(H)];
    for (count, want) in [(1u32, 1u32), (2, 1), (3, 0)] {
        launch(&dev, &m, "loop_step", &c, &args, "loop_step");
        assert_eq!(dev.read::<u32>(&counter).unwrap(), vec![count]);
        assert_eq!(table.get(H), Some(want));
    }
}

fn unknown_handle_stops_the_kernel(backend: Backend) {
    let dev = device();
    let m = module_at(&dev, PTX, backend);
    let table = Arc::new(GraphConditions::new([(H, 0)]));
    let args = [KernelArg::U64(H + 5), KernelArg::U32(1)];
    for c in [
        with_conditions(cfg([1, 1, 1], [1, 1, 1], backend), &table),
        cfg([1, 1, 1], [1, 1, 1], backend),
    ] {
        let e = dev
            .launch(&m, "set_cond", &c, &args)
            .expect_err("an unknown handle")
            .to_string();
        assert!(
            e.contains("cudaGraphSetConditional") && e.contains("graph_cond.ptx:88"),
            "{e}"
        );
    }
    assert_eq!(table.get(H), Some(0));
}

#[test]
fn entry_point_is_a_builtin_without_result() {
    use ptxjit::ir::CdpFn;
    let f = CdpFn::from_name("cudaGraphSetConditional");
    assert_eq!(f, Some(CdpFn::GraphSetConditional));
    assert_eq!(CdpFn::GraphSetConditional.param_sizes(), [8, 4]);
    assert_eq!(CdpFn::GraphSetConditional.result(), None);
}

both_backends!(sets_handles, unknown_handle_stops_the_kernel);
