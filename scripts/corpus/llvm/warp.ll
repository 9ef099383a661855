; NVVM warp intrinsics: shfl.sync in every mode, vote.sync, match, activemask, bar.warp.sync.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.idx.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i32 @llvm.nvvm.activemask()
declare void @llvm.nvvm.bar.warp.sync(i32)
define ptx_kernel void @warp(ptr addrspace(1) %a, ptr addrspace(1) %f) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %tx
  %v = load i32, ptr addrspace(1) %p
  %d = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %v, i32 1, i32 31)
  %u = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %d, i32 2, i32 0)
  %b = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %u, i32 4, i32 31)
  %pf = getelementptr float, ptr addrspace(1) %f, i64 %tx
  %fv = load float, ptr addrspace(1) %pf
  %fi = call float @llvm.nvvm.shfl.sync.idx.f32(i32 -1, float %fv, i32 0, i32 31)
  store float %fi, ptr addrspace(1) %pf
  %c = icmp sgt i32 %b, 0
  %bal = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %c)
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %c)
  %any = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 true)
  %am = call i32 @llvm.nvvm.activemask()
  call void @llvm.nvvm.bar.warp.sync(i32 %am)
  %al = zext i1 %all to i32
  %an = zext i1 %any to i32
  %s1 = add i32 %bal, %al
  %s2 = add i32 %s1, %an
  store i32 %s2, ptr addrspace(1) %p
  ret void
}
