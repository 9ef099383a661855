; A dense switch (jump table or compare chain), an unreachable default and a select chain.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @sw(ptr addrspace(1) %a) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %k = and i32 %t, 7
  switch i32 %k, label %def [ i32 0, label %c0  i32 1, label %c1  i32 2, label %c2  i32 3, label %c3  i32 4, label %c4  i32 5, label %c5 ]
c0: br label %join
c1: br label %join
c2: br label %join
c3: br label %join
c4: br label %join
c5: br label %join
def: br label %join
join:
  %v = phi i32 [ 10, %c0 ], [ 21, %c1 ], [ 32, %c2 ], [ 43, %c3 ], [ 54, %c4 ], [ 65, %c5 ], [ -1, %def ]
  %tx = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %tx
  store i32 %v, ptr addrspace(1) %p
  ret void
}
define ptx_kernel void @trap_on_neg(ptr addrspace(1) %a) {
entry:
  %v = load i32, ptr addrspace(1) %a
  %c = icmp slt i32 %v, 0
  br i1 %c, label %bad, label %ok
bad:
  call void @llvm.trap()
  unreachable
ok:
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %a
  ret void
}
declare void @llvm.trap()
