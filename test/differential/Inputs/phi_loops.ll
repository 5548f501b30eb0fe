; Phis with back edges, nested loops and a phi whose incoming value is
; defined later in layout order (flow-aware falls back for those).
define i32 @sum_to(i32 %n) {
entry:
  %cmp0 = icmp sgt i32 %n, 0
  br i1 %cmp0, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %acc.next = add nsw i32 %acc, %i
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %r = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  ret i32 %r
}

define double @nested(ptr %m, i64 %rows, i64 %cols) {
entry:
  br label %outer

outer:
  %r = phi i64 [ 0, %entry ], [ %r.next, %outer.latch ]
  %s.outer = phi double [ 0.0, %entry ], [ %s.inner.lcssa, %outer.latch ]
  br label %inner

inner:
  %c = phi i64 [ 0, %outer ], [ %c.next, %inner ]
  %s = phi double [ %s.outer, %outer ], [ %s.next, %inner ]
  %row = mul i64 %r, %cols
  %idx = add i64 %row, %c
  %p = getelementptr inbounds double, ptr %m, i64 %idx
  %v = load double, ptr %p, align 8
  %s.next = fadd fast double %s, %v
  %c.next = add i64 %c, 1
  %c.done = icmp uge i64 %c.next, %cols
  br i1 %c.done, label %outer.latch, label %inner

outer.latch:
  %s.inner.lcssa = phi double [ %s.next, %inner ]
  %r.next = add i64 %r, 1
  %r.done = icmp uge i64 %r.next, %rows
  br i1 %r.done, label %exit, label %outer

exit:
  ret double %s.inner.lcssa
}

; Mutually dependent phis (a swap loop) and a phi that uses itself.
define i64 @swap_loop(i64 %a0, i64 %b0, i32 %n) {
entry:
  br label %head

head:
  %a = phi i64 [ %a0, %entry ], [ %b, %body ]
  %b = phi i64 [ %b0, %entry ], [ %a, %body ]
  %k = phi i32 [ %n, %entry ], [ %k.dec, %body ]
  %self = phi i64 [ 0, %entry ], [ %self, %body ]
  %more = icmp ne i32 %k, 0
  br i1 %more, label %body, label %out

body:
  %k.dec = sub i32 %k, 1
  br label %head

out:
  %x = xor i64 %a, %b
  %y = add i64 %x, %self
  ret i64 %y
}
