; Non-inlined device functions: scalar, struct return, byval aggregate, recursion, indirect calls
; through a constant function-pointer table.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
%pair = type { i32, float }
%big = type { [6 x i32] }
define internal %pair @mkpair(i32 %a, float %b) noinline {
  %p0 = insertvalue %pair undef, i32 %a, 0
  %p1 = insertvalue %pair %p0, float %b, 1
  ret %pair %p1
}
define internal i32 @sumbig(ptr byval(%big) align 4 %b) noinline {
  %p = getelementptr %big, ptr %b, i32 0, i32 0, i32 5
  %v = load i32, ptr %p
  %q = getelementptr %big, ptr %b, i32 0, i32 0, i32 1
  %w = load i32, ptr %q
  %s = add i32 %v, %w
  ret i32 %s
}
define internal i32 @fact(i32 %n) noinline {
  %c = icmp ult i32 %n, 2
  br i1 %c, label %base, label %rec
base:
  ret i32 1
rec:
  %m = sub i32 %n, 1
  %r = call i32 @fact(i32 %m)
  %p = mul i32 %r, %n
  ret i32 %p
}
define internal i32 @inc(i32 %x) noinline { %r = add i32 %x, 1
  ret i32 %r }
define internal i32 @dbl(i32 %x) noinline { %r = shl i32 %x, 1
  ret i32 %r }
@table = internal addrspace(1) global [2 x ptr] [ptr @inc, ptr @dbl], align 8
define ptx_kernel void @k(ptr addrspace(1) %o, ptr addrspace(1) %bigp) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pr = call %pair @mkpair(i32 %t, float 2.5)
  %a = extractvalue %pair %pr, 0
  %b = extractvalue %pair %pr, 1
  %bi = fptosi float %b to i32
  %local = alloca %big, align 4
  call void @llvm.memcpy.p0.p1.i64(ptr %local, ptr addrspace(1) %bigp, i64 24, i1 false)
  %s = call i32 @sumbig(ptr byval(%big) align 4 %local)
  %f = call i32 @fact(i32 %t)
  %sel = and i32 %t, 1
  %sx = zext i32 %sel to i64
  %fpp = getelementptr [2 x ptr], ptr addrspace(1) @table, i64 0, i64 %sx
  %fp = load ptr, ptr addrspace(1) %fpp
  %ic = call i32 %fp(i32 %f)
  %r1 = add i32 %a, %bi
  %r2 = add i32 %r1, %s
  %r3 = add i32 %r2, %ic
  %tx = zext i32 %t to i64
  %po = getelementptr i32, ptr addrspace(1) %o, i64 %tx
  store i32 %r3, ptr addrspace(1) %po
  ret void
}
declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)
