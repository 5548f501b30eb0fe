; Intrinsic calls (memory, math, assume, lifetime, metadata operands),
; indirect calls, inline asm, musttail/tail calls and call attributes.
declare void @llvm.memcpy.p0.p0.i64(ptr noalias, ptr noalias, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.sqrt.f64(double)
declare void @llvm.assume(i1)
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare void @llvm.experimental.noalias.scope.decl(metadata)
declare i64 @llvm.read_register.i64(metadata)
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)
declare i32 @callee(i32)

define void @mem(ptr %d, ptr %s, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %d, ptr align 8 %s, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr %d, i8 0, i64 16, i1 true)
  ret void
}

define i32 @math(i32 %a, i32 %b, double %x) {
entry:
  %m = call i32 @llvm.smax.i32(i32 %a, i32 %b)
  %f = call i32 @llvm.fshl.i32(i32 %m, i32 %b, i32 3)
  %s = call double @llvm.sqrt.f64(double %x)
  %fm = call fast double @llvm.fma.f64(double %s, double %x, double 1.0)
  %c = fcmp oge double %fm, 0.0
  call void @llvm.assume(i1 %c)
  %ov = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %f, i32 %a)
  %v = extractvalue { i32, i1 } %ov, 0
  %o = extractvalue { i32, i1 } %ov, 1
  %r = select i1 %o, i32 0, i32 %v
  ret i32 %r
}

define i32 @scopes(ptr %p) {
entry:
  %tmp = alloca [32 x i8], align 1
  call void @llvm.lifetime.start.p0(ptr %tmp)
  call void @llvm.experimental.noalias.scope.decl(metadata !2)
  %sp = call ptr @llvm.stacksave.p0()
  %v = load i32, ptr %p, align 4, !alias.scope !2, !noalias !5
  call void @llvm.stackrestore.p0(ptr %sp)
  call void @llvm.lifetime.end.p0(ptr %tmp)
  %sp.reg = call i64 @llvm.read_register.i64(metadata !6)
  %t = trunc i64 %sp.reg to i32
  %r = add i32 %v, %t
  ret i32 %r
}

define i32 @indirect(ptr %fp, i32 %x) {
entry:
  %a = call i32 %fp(i32 %x)
  %b = tail call i32 @callee(i32 %a) #0
  %c = call i32 asm sideeffect "add $0, $1", "=r,r"(i32 %b)
  %d = notail call i32 @callee(i32 %c)
  ret i32 %d
}

define i32 @forward(i32 %x) {
entry:
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}

attributes #0 = { nounwind }

!0 = distinct !{!0, !"domain"}
!1 = distinct !{!1, !0, !"scope a"}
!2 = !{!1}
!3 = distinct !{!3, !0, !"scope b"}
!5 = !{!3}
!6 = !{!"rsp"}
