; Every fcmp and icmp predicate, plus selects on the results.
define i32 @all_fcmp(double %a, double %b) {
entry:
  %f0 = fcmp false double %a, %b
  %z0 = zext i1 %f0 to i32
  %f1 = fcmp oeq double %a, %b
  %z1 = zext i1 %f1 to i32
  %s1 = add i32 %z0, %z1
  %f2 = fcmp ogt double %a, %b
  %z2 = zext i1 %f2 to i32
  %s2 = add i32 %s1, %z2
  %f3 = fcmp oge double %a, %b
  %z3 = zext i1 %f3 to i32
  %s3 = add i32 %s2, %z3
  %f4 = fcmp olt double %a, %b
  %z4 = zext i1 %f4 to i32
  %s4 = add i32 %s3, %z4
  %f5 = fcmp ole double %a, %b
  %z5 = zext i1 %f5 to i32
  %s5 = add i32 %s4, %z5
  %f6 = fcmp one double %a, %b
  %z6 = zext i1 %f6 to i32
  %s6 = add i32 %s5, %z6
  %f7 = fcmp ord double %a, %b
  %z7 = zext i1 %f7 to i32
  %s7 = add i32 %s6, %z7
  %f8 = fcmp uno double %a, %b
  %z8 = zext i1 %f8 to i32
  %s8 = add i32 %s7, %z8
  %f9 = fcmp ueq double %a, %b
  %z9 = zext i1 %f9 to i32
  %s9 = add i32 %s8, %z9
  %f10 = fcmp ugt double %a, %b
  %z10 = zext i1 %f10 to i32
  %s10 = add i32 %s9, %z10
  %f11 = fcmp uge double %a, %b
  %z11 = zext i1 %f11 to i32
  %s11 = add i32 %s10, %z11
  %f12 = fcmp ult double %a, %b
  %z12 = zext i1 %f12 to i32
  %s12 = add i32 %s11, %z12
  %f13 = fcmp ule double %a, %b
  %z13 = zext i1 %f13 to i32
  %s13 = add i32 %s12, %z13
  %f14 = fcmp une double %a, %b
  %z14 = zext i1 %f14 to i32
  %s14 = add i32 %s13, %z14
  %f15 = fcmp true double %a, %b
  %z15 = zext i1 %f15 to i32
  %s15 = add i32 %s14, %z15
  ret i32 %s15
}

define i64 @all_icmp(i64 %a, i64 %b) {
entry:
  %c0 = icmp eq i64 %a, %b
  %v0 = select i1 %c0, i64 %a, i64 0
  %c1 = icmp ne i64 %a, %b
  %v1 = select i1 %c1, i64 %v0, i64 1
  %c2 = icmp ugt i64 %a, %b
  %v2 = select i1 %c2, i64 %v1, i64 2
  %c3 = icmp uge i64 %a, %b
  %v3 = select i1 %c3, i64 %v2, i64 3
  %c4 = icmp ult i64 %a, %b
  %v4 = select i1 %c4, i64 %v3, i64 4
  %c5 = icmp ule i64 %a, %b
  %v5 = select i1 %c5, i64 %v4, i64 5
  %c6 = icmp sgt i64 %a, %b
  %v6 = select i1 %c6, i64 %v5, i64 6
  %c7 = icmp sge i64 %a, %b
  %v7 = select i1 %c7, i64 %v6, i64 7
  %c8 = icmp slt i64 %a, %b
  %v8 = select i1 %c8, i64 %v7, i64 8
  %c9 = icmp sle i64 %a, %b
  %v9 = select i1 %c9, i64 %v8, i64 9
  ret i64 %v9
}

define i1 @fcmp_fast_float(float %x) {
entry:
  %c = fcmp nnan ninf oeq float %x, 1.0
  %d = fcmp uno float %x, 0.0
  %e = or i1 %c, %d
  ret i1 %e
}

define i1 @icmp_ptr(ptr %p, ptr %q) {
entry:
  %c = icmp eq ptr %p, null
  %d = icmp ult ptr %p, %q
  %e = select i1 %c, i1 true, i1 %d
  ret i1 %e
}
