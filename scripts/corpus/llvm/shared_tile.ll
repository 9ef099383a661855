; Static and dynamic (extern) shared memory, barriers, addrspacecast to generic.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
@tile = internal addrspace(3) global [256 x float] undef, align 4
@dyn = external addrspace(3) global [0 x i32], align 4
define ptx_kernel void @reverse(ptr addrspace(1) %a) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %t to i64
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %tx
  %v = load float, ptr addrspace(1) %pa
  %ps = getelementptr [256 x float], ptr addrspace(3) @tile, i64 0, i64 %tx
  store float %v, ptr addrspace(3) %ps
  call void @llvm.nvvm.barrier0()
  %r = sub i64 255, %tx
  %pr = getelementptr [256 x float], ptr addrspace(3) @tile, i64 0, i64 %r
  %g = addrspacecast ptr addrspace(3) %pr to ptr
  %w = load float, ptr %g
  store float %w, ptr addrspace(1) %pa
  ret void
}
define ptx_kernel void @dyn_count(ptr addrspace(1) %o) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %t to i64
  %p = getelementptr [0 x i32], ptr addrspace(3) @dyn, i64 0, i64 %tx
  store i32 %t, ptr addrspace(3) %p
  call void @llvm.nvvm.barrier0()
  %q = getelementptr [0 x i32], ptr addrspace(3) @dyn, i64 0, i64 0
  %v = load volatile i32, ptr addrspace(3) %q
  %po = getelementptr i32, ptr addrspace(1) %o, i64 %tx
  store i32 %v, ptr addrspace(1) %po
  ret void
}
