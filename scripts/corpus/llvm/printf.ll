; Device printf through vprintf with a packed argument buffer.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
@fmt = internal addrspace(4) constant [16 x i8] c"t=%d v=%f s=%s\0A\00", align 1
@str = internal addrspace(4) constant [3 x i8] c"ok\00", align 1
declare i32 @vprintf(ptr, ptr)
define ptx_kernel void @pr(float %v) {
entry:
  %buf = alloca { i32, double, ptr }, align 8
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p0 = getelementptr { i32, double, ptr }, ptr %buf, i32 0, i32 0
  store i32 %t, ptr %p0
  %d = fpext float %v to double
  %p1 = getelementptr { i32, double, ptr }, ptr %buf, i32 0, i32 1
  store double %d, ptr %p1
  %p2 = getelementptr { i32, double, ptr }, ptr %buf, i32 0, i32 2
  %sg = addrspacecast ptr addrspace(4) @str to ptr
  store ptr %sg, ptr %p2
  %fg = addrspacecast ptr addrspace(4) @fmt to ptr
  %r = call i32 @vprintf(ptr %fg, ptr %buf)
  ret void
}
