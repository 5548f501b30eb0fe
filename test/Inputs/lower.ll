; Two functions for in-process lowering (mir-lowering.test): a loop over
; memory, and floating point with calls. No triple: --mtriple chooses.
define i32 @sum(ptr %p, i32 %n) {
entry:
  %cmp = icmp sgt i32 %n, 0
  br i1 %cmp, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %add, %loop ]
  %idx = sext i32 %i to i64
  %gep = getelementptr i32, ptr %p, i64 %idx
  %v = load i32, ptr %gep
  %add = add i32 %acc, %v
  %inc = add i32 %i, 1
  %done = icmp eq i32 %inc, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi i32 [ 0, %entry ], [ %add, %loop ]
  ret i32 %r
}
declare double @llvm.sqrt.f64(double)
declare i32 @ext(i32)
define double @fp(double %x, double %y) {
  %m = fmul double %x, %y
  %s = call double @llvm.sqrt.f64(double %m)
  %c = fptosi double %s to i32
  %e = call i32 @ext(i32 %c)
  %d = sitofp i32 %e to double
  %r = fadd double %d, %s
  ret double %r
}
