; Vector loads/stores (<4 x float>, <2 x double>, <4 x i16>), <2 x half> and <2 x bfloat>
; arithmetic, shufflevector and extract/insertelement.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @vec(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %h, ptr addrspace(1) %s) {
entry:
  %v = load <4 x float>, ptr addrspace(1) %a, align 16
  %w = shufflevector <4 x float> %v, <4 x float> undef, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %x = fadd <4 x float> %v, %w
  store <4 x float> %x, ptr addrspace(1) %a, align 16
  %d = load <2 x double>, ptr addrspace(1) %b, align 16
  %e0 = extractelement <2 x double> %d, i32 0
  %e1 = extractelement <2 x double> %d, i32 1
  %m = fmul double %e0, %e1
  %d2 = insertelement <2 x double> %d, double %m, i32 1
  store <2 x double> %d2, ptr addrspace(1) %b, align 16
  %hv = load <2 x half>, ptr addrspace(1) %h, align 4
  %hm = fmul <2 x half> %hv, %hv
  %ha = fadd <2 x half> %hm, <half 1.0, half 2.0>
  store <2 x half> %ha, ptr addrspace(1) %h, align 4
  %sv = load <4 x i16>, ptr addrspace(1) %s, align 8
  %sa = add <4 x i16> %sv, <i16 1, i16 2, i16 3, i16 4>
  %sm = mul <4 x i16> %sa, %sv
  store <4 x i16> %sm, ptr addrspace(1) %s, align 8
  ret void
}
define ptx_kernel void @bf(ptr addrspace(1) %p) {
entry:
  %v = load <2 x bfloat>, ptr addrspace(1) %p, align 4
  %f = fpext <2 x bfloat> %v to <2 x float>
  %g = fmul <2 x float> %f, <float 3.0, float 0.5>
  %r = fptrunc <2 x float> %g to <2 x bfloat>
  store <2 x bfloat> %r, ptr addrspace(1) %p, align 4
  ret void
}
