; switch, indirectbr with blockaddress, and a switch with shared targets.
define i32 @classify(i32 %c) {
entry:
  switch i32 %c, label %other [
    i32 0, label %zero
    i32 1, label %small
    i32 2, label %small
    i32 3, label %small
    i32 100, label %hundred
    i32 -1, label %neg
  ]

zero:
  br label %done

small:
  %s = mul i32 %c, 7
  br label %done

hundred:
  br label %done

neg:
  %n = sub i32 0, %c
  br label %done

other:
  %o = urem i32 %c, 13
  br label %done

done:
  %r = phi i32 [ 0, %zero ], [ %s, %small ], [ 1, %hundred ], [ %n, %neg ], [ %o, %other ]
  ret i32 %r
}

@targets = private constant [2 x ptr] [ptr blockaddress(@jump, %a), ptr blockaddress(@jump, %b)]

define i32 @jump(i64 %i) {
entry:
  %slot = getelementptr inbounds [2 x ptr], ptr @targets, i64 0, i64 %i
  %dest = load ptr, ptr %slot, align 8
  indirectbr ptr %dest, [label %a, label %b]

a:
  ret i32 10

b:
  ret i32 20
}

define i8 @switch_i8(i8 %x) {
entry:
  switch i8 %x, label %def [
    i8 1, label %one
  ]
one:
  ret i8 1
def:
  ret i8 0
}
