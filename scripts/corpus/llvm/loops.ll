; Loops with phis, a grid-stride loop, nested loops and a loop-carried float reduction.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
define ptx_kernel void @saxpy_grid(ptr addrspace(1) %x, ptr addrspace(1) %y, float %a, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bd = mul i32 %b, %d
  %i0 = add i32 %bd, %t
  br label %loop
loop:
  %i = phi i32 [ %i0, %entry ], [ %in, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %ix = sext i32 %i to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %ix
  %py = getelementptr float, ptr addrspace(1) %y, i64 %ix
  %vx = load float, ptr addrspace(1) %px
  %vy = load float, ptr addrspace(1) %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr addrspace(1) %py
  %in = add i32 %i, 4096
  br label %loop
exit:
  ret void
}
define ptx_kernel void @nested_sum(ptr addrspace(1) %m, ptr addrspace(1) %out, i32 %rows, i32 %cols) {
entry:
  br label %outer
outer:
  %r = phi i32 [ 0, %entry ], [ %rn, %outer_end ]
  %acc = phi float [ 0.0, %entry ], [ %acc2, %outer_end ]
  br label %inner
inner:
  %c = phi i32 [ 0, %outer ], [ %cn, %inner ]
  %a = phi float [ %acc, %outer ], [ %an, %inner ]
  %rc = mul i32 %r, %cols
  %idx = add i32 %rc, %c
  %ix = zext i32 %idx to i64
  %p = getelementptr float, ptr addrspace(1) %m, i64 %ix
  %v = load float, ptr addrspace(1) %p
  %an = fadd float %a, %v
  %cn = add i32 %c, 1
  %ci = icmp ult i32 %cn, %cols
  br i1 %ci, label %inner, label %outer_end
outer_end:
  %acc2 = phi float [ %an, %inner ]
  %rn = add i32 %r, 1
  %ro = icmp ult i32 %rn, %rows
  br i1 %ro, label %outer, label %done
done:
  store float %acc2, ptr addrspace(1) %out
  ret void
}
