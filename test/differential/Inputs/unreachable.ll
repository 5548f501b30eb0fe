; Unreachable blocks, a block only reachable from dead code, and a layout
; order that differs from the depth-first order from the entry.
define i32 @dead_blocks(i32 %x) {
entry:
  %c = icmp slt i32 %x, 10
  br i1 %c, label %small, label %big

dead1:
  %d1 = mul i32 %x, 3
  br label %dead2

big:
  %b = shl i32 %x, 2
  br label %join

dead2:
  %d2 = add i32 %d1, %b
  br label %dead2

small:
  %s = sub i32 10, %x
  br label %join

join:
  %j = phi i32 [ %b, %big ], [ %s, %small ]
  ret i32 %j
}

; Blocks laid out in reverse of their execution order: uses come before
; definitions in layout order.
define i32 @reversed(i32 %a, i32 %b) {
entry:
  br label %first

third:
  %t3 = mul i32 %t2, %t1
  %t4 = icmp ugt i32 %t3, 100
  %t5 = select i1 %t4, i32 %t3, i32 %t2
  ret i32 %t5

second:
  %t2 = add i32 %t1, %b
  br label %third

first:
  %t1 = sub i32 %a, %b
  br label %second
}

define void @only_unreachable() {
entry:
  unreachable
}

define i32 @self_loop_dead(i32 %x) {
entry:
  ret i32 %x

spin:
  %v = phi i32 [ 0, %spin ]
  br label %spin
}
