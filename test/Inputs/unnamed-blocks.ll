; Shared input: blocks without names, as clang emits them (numbered by the
; printer: %2 is @clamp's unlabelled entry block, after its arguments %0 and
; %1), and a function whose named blocks surround an unnamed one.
define i32 @clamp(i32 %0, i32 %1) {
  %3 = icmp sgt i32 %0, %1
  br i1 %3, label %4, label %5

4:
  br label %7

5:
  %6 = add i32 %0, 1
  br label %7

7:
  %8 = phi i32 [ %1, %4 ], [ %6, %5 ]
  ret i32 %8
}

define i32 @mixed(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %0, label %exit

0:
  br label %exit

exit:
  %r = phi i32 [ 1, %0 ], [ %x, %entry ]
  ret i32 %r
}
