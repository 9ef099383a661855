; Read-only loads (ld.global.nc via invariant metadata / nvvm.ldg), approximate math NVVM
; intrinsics, mul.wide and division by constants.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.rcp.rn.f(float)
declare float @llvm.nvvm.fma.rz.f(float, float, float)
declare i32 @llvm.nvvm.mulhi.i(i32, i32)
define ptx_kernel void @m(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out, i32 %k) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %t to i64
  %p = getelementptr float, ptr addrspace(1) %in, i64 %tx
  %v = load float, ptr addrspace(1) %p, !invariant.load !0
  %a = call float @llvm.nvvm.ex2.approx.f(float %v)
  %b = call float @llvm.nvvm.lg2.approx.f(float %a)
  %c = call float @llvm.nvvm.rsqrt.approx.f(float %b)
  %d = call float @llvm.nvvm.sin.approx.f(float %c)
  %e = call float @llvm.nvvm.rcp.rn.f(float %d)
  %f = call float @llvm.nvvm.fma.rz.f(float %e, float %v, float 1.0)
  %po = getelementptr float, ptr addrspace(1) %out, i64 %tx
  store float %f, ptr addrspace(1) %po
  %w = mul i64 %tx, 12345678901
  %q = udiv i32 %t, 7
  %r = sdiv i32 %k, 3
  %h = call i32 @llvm.nvvm.mulhi.i(i32 %q, i32 %r)
  %hx = sext i32 %h to i64
  %s = add i64 %w, %hx
  %pw = getelementptr i64, ptr addrspace(1) %out, i64 %tx
  store i64 %s, ptr addrspace(1) %pw
  ret void
}
!0 = !{}
