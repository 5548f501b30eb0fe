; Shared input: a straight-line function, a CFG with a phi back edge and an
; unreachable block, and a declaration.
define i32 @add(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @f(i1 %c, i32 %x) {
entry:
  br i1 %c, label %a, label %b
a:
  %p = phi i32 [ 0, %entry ], [ %q, %b ]
  ret i32 %p
b:
  %q = add i32 %x, 1
  br label %a
dead:
  ret i32 7
}

declare void @ext()
