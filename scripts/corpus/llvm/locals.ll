; A local array with dynamic indexing, memset, a constant-memory table and global variables
; with initializers (including a pointer to another global).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
@ctab = internal addrspace(4) constant [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6], align 4
@gcount = addrspace(1) global i32 0, align 4
@gptr = addrspace(1) global ptr addrspacecast (ptr addrspace(1) @gcount to ptr), align 8
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
define ptx_kernel void @loc(ptr addrspace(1) %idx, ptr addrspace(1) %o) {
entry:
  %arr = alloca [16 x i32], align 4
  call void @llvm.memset.p0.i64(ptr %arr, i8 0, i64 64, i1 false)
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %t to i64
  %pi = getelementptr i32, ptr addrspace(1) %idx, i64 %tx
  %i = load i32, ptr addrspace(1) %pi
  %im = and i32 %i, 15
  %ix = zext i32 %im to i64
  %pa = getelementptr [16 x i32], ptr %arr, i64 0, i64 %ix
  %k = and i32 %t, 7
  %kx = zext i32 %k to i64
  %pc = getelementptr [8 x i32], ptr addrspace(4) @ctab, i64 0, i64 %kx
  %c = load i32, ptr addrspace(4) %pc
  store volatile i32 %c, ptr %pa
  %j = xor i32 %im, 5
  %jx = zext i32 %j to i64
  %pj = getelementptr [16 x i32], ptr %arr, i64 0, i64 %jx
  %r = load volatile i32, ptr %pj
  %gp = load ptr, ptr addrspace(1) @gptr
  %old = atomicrmw add ptr %gp, i32 1 monotonic
  %s = add i32 %r, %old
  %po = getelementptr i32, ptr addrspace(1) %o, i64 %tx
  store i32 %s, ptr addrspace(1) %po
  ret void
}
