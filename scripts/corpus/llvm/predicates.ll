; i1 values kept in registers across blocks, select on i1, i1 phis and xor with true
; (LLVM writes true as -1 in mov.pred), and an i1 stored to memory.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @preds(ptr addrspace(1) %a, ptr addrspace(1) %flags, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c0 = icmp ult i32 %t, %n
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %in, %loop ]
  %p = phi i1 [ true, %entry ], [ %pn, %loop ]
  %q = phi i1 [ false, %entry ], [ %qn, %loop ]
  %pn = xor i1 %p, %c0
  %qn = or i1 %q, %pn
  %in = add i32 %i, 1
  %e = icmp eq i32 %in, 5
  br i1 %e, label %done, label %loop
done:
  %s = select i1 %qn, i32 7, i32 3
  %r = select i1 %pn, i32 %s, i32 %t
  %tx = zext i32 %t to i64
  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %tx
  store i32 %r, ptr addrspace(1) %pa
  %pf = getelementptr i8, ptr addrspace(1) %flags, i64 %tx
  %b = zext i1 %pn to i8
  store i8 %b, ptr addrspace(1) %pf
  ret void
}
