; Calls whose inlining changes more than the call's block: a result used in
; another block, a constant result, a callee with static allocas, an invoke
; whose unwind destination gains incoming values, and a multi-block callee.
target triple = "x86_64-unknown-linux-gnu"

declare void @sink(i32)
declare void @may_throw()
declare i32 @__gxx_personality_v0(...)

define internal i32 @seven() {
  ret i32 7
}

define internal i32 @with_alloca(i32 %x) {
  %slot = alloca i32
  store volatile i32 %x, ptr %slot
  %v = load volatile i32, ptr %slot
  ret i32 %v
}

define internal i32 @branchy(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 3
  br i1 %c, label %big, label %small
big:
  call void @sink(i32 %x)
  ret i32 1
small:
  ret i32 0
}

define internal void @thrower(i32 %x) {
  call void @may_throw()
  call void @sink(i32 %x)
  ret void
}

define i32 @caller(i32 %a) personality ptr @__gxx_personality_v0 {
entry:
  %k = call i32 @seven()
  %p = icmp eq i32 %a, 0
  br i1 %p, label %left, label %right
left:
  %w = call i32 @with_alloca(i32 %a)
  br label %join
right:
  %b = call i32 @branchy(i32 %a)
  invoke void @thrower(i32 %b) to label %join unwind label %lpad
join:
  %r = phi i32 [ %w, %left ], [ %b, %right ]
  %s = add i32 %r, %k
  %t = mul i32 %s, %k
  ret i32 %t
lpad:
  %q = phi i32 [ %b, %right ]
  %lp = landingpad { ptr, i32 } cleanup
  call void @sink(i32 %q)
  resume { ptr, i32 } %lp
}

define i32 @outer(i32 %z) {
  %x = call i32 @caller(i32 %z)
  %y = call i32 @caller(i32 %x)
  ret i32 %y
}

; Inlining an invoke of a callee that cannot throw takes the invoke's
; incoming value out of the landing pad's PHI, which then has one value
; left and is replaced by it in a block no other rule names (%cleanup).
define internal i32 @pure(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

define i32 @caller2(i32 %a) personality ptr @__gxx_personality_v0 {
entry:
  %c = icmp eq i32 %a, 0
  br i1 %c, label %one, label %two
one:
  invoke void @may_throw() to label %done unwind label %lpad
two:
  %v = invoke i32 @pure(i32 %a) to label %done unwind label %lpad
done:
  call void @thrower(i32 %a)
  ret i32 %a
lpad:
  %f = phi i32 [ 1, %one ], [ 0, %two ]
  %lp = landingpad { ptr, i32 } cleanup
  %z = icmp sgt i32 %a, 5
  br i1 %z, label %cleanup, label %other
cleanup:
  %g = add i32 %f, %a
  call void @sink(i32 %g)
  br label %rethrow
other:
  call void @may_throw()
  br label %rethrow
rethrow:
  resume { ptr, i32 } %lp
}
