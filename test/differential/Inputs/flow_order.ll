; Flow-aware embeddings depend on the order in which instructions are
; first embedded: layout order here differs from depth-first order, values
; flow across blocks in both directions, and a loop carries a value.
declare i32 @opaque(i32)

define i32 @diamond_out_of_order(i32 %a, i32 %b) {
entry:
  %x = mul i32 %a, %b
  %c = icmp ult i32 %x, 1000
  br i1 %c, label %right, label %left

merge:
  %m = phi i32 [ %l2, %left ], [ %r2, %right ], [ %l1.late, %late ]
  %m2 = add i32 %m, %x
  %m3 = call i32 @opaque(i32 %m2)
  br label %tail

left:
  %l1 = shl i32 %x, 3
  %l2 = add i32 %l1, %a
  br label %merge

tail:
  %t = xor i32 %m3, %x
  ret i32 %t

right:
  %r1 = lshr i32 %x, 2
  %r2 = sub i32 %r1, %b
  br label %merge

late:
  %l1.late = add i32 %m3, 1
  br label %merge
}

define i64 @loop_carried(i64 %n) {
entry:
  br label %body

latch:
  %i.next = add i64 %i, 1
  %acc.next = mul i64 %acc, %i.next
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %body

body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %acc = phi i64 [ 1, %entry ], [ %acc.next, %latch ]
  %odd = and i64 %i, 1
  %isodd = icmp ne i64 %odd, 0
  br i1 %isodd, label %latch, label %even

even:
  %h = lshr i64 %acc, 1
  br label %latch

exit:
  ret i64 %acc.next
}
