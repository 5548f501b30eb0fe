; Struct and array values: returns, insertvalue/extractvalue, byval and
; sret arguments, and calls returning aggregates.
%pair = type { i64, double }
%big = type { [4 x i32], %pair, <2 x float> }

define %pair @make_pair(i64 %a, double %b) {
entry:
  %p0 = insertvalue %pair poison, i64 %a, 0
  %p1 = insertvalue %pair %p0, double %b, 1
  ret %pair %p1
}

define [3 x i8] @make_arr(i8 %x) {
entry:
  %a0 = insertvalue [3 x i8] undef, i8 %x, 0
  %a1 = insertvalue [3 x i8] %a0, i8 1, 1
  %a2 = insertvalue [3 x i8] %a1, i8 2, 2
  ret [3 x i8] %a2
}

define double @use_pair(i64 %a) {
entry:
  %p = call %pair @make_pair(i64 %a, double 2.5)
  %x = extractvalue %pair %p, 0
  %y = extractvalue %pair %p, 1
  %xf = sitofp i64 %x to double
  %s = fadd double %xf, %y
  ret double %s
}

define void @sret_fill(ptr sret(%big) align 8 %out, ptr byval(%pair) align 8 %in) {
entry:
  %v = load %pair, ptr %in, align 8
  %f = getelementptr inbounds %big, ptr %out, i32 0, i32 1
  store %pair %v, ptr %f, align 8
  %agg = load %big, ptr %out, align 8
  %inner = extractvalue %big %agg, 0, 2
  %vec = extractvalue %big %agg, 2
  %agg2 = insertvalue %big %agg, i32 %inner, 0, 0
  store %big %agg2, ptr %out, align 8
  ret void
}

define { i32, { i8, i16 } } @nested_struct(i32 %a) {
entry:
  %s = insertvalue { i32, { i8, i16 } } zeroinitializer, i32 %a, 0
  ret { i32, { i8, i16 } } %s
}

define <{ i8, i32 }> @packed() {
entry:
  ret <{ i8, i32 }> <{ i8 1, i32 2 }>
}
