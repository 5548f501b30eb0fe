; Allocas, GEPs of every shape, loads/stores, atomics, fences and va_arg.
%struct.node = type { i32, ptr, [4 x i16] }

@g = global i32 7
@arr = global [10 x i32] zeroinitializer

define i32 @geps(ptr %n, i64 %i) {
entry:
  %f0 = getelementptr inbounds %struct.node, ptr %n, i32 0, i32 0
  %v0 = load i32, ptr %f0, align 4
  %f2 = getelementptr inbounds %struct.node, ptr %n, i64 %i, i32 2, i64 3
  %v2 = load i16, ptr %f2, align 2
  %w = sext i16 %v2 to i32
  %next.p = getelementptr inbounds nuw %struct.node, ptr %n, i32 0, i32 1
  %next = load ptr, ptr %next.p, align 8
  %ga = getelementptr [10 x i32], ptr @arr, i64 0, i64 %i
  %gv = load i32, ptr %ga, align 4
  %b = getelementptr i8, ptr %next, i64 -4
  %bv = load i32, ptr %b, align 4
  %ce = load i32, ptr getelementptr inbounds ([10 x i32], ptr @arr, i64 0, i64 5), align 4
  %s1 = add i32 %v0, %w
  %s2 = add i32 %s1, %gv
  %s3 = add i32 %s2, %bv
  %s4 = add i32 %s3, %ce
  ret i32 %s4
}

define i32 @stack(i32 %x) {
entry:
  %a = alloca i32, align 4
  %buf = alloca [16 x i8], align 16
  %dyn = alloca i64, i32 %x, align 8
  store i32 %x, ptr %a, align 4
  store volatile i8 1, ptr %buf, align 16
  store i64 0, ptr %dyn, align 8
  %v = load i32, ptr %a, align 4
  %u = load volatile i8, ptr %buf, align 16
  %z = zext i8 %u to i32
  %r = add i32 %v, %z
  ret i32 %r
}

define i32 @atomics(ptr %p, i32 %v) {
entry:
  %old = atomicrmw add ptr %p, i32 %v seq_cst, align 4
  %x = atomicrmw xchg ptr %p, i32 0 acquire, align 4
  %mx = atomicrmw umax ptr %p, i32 %v monotonic, align 4
  %fa = atomicrmw fadd ptr @g, float 1.0 release, align 4
  %pair = cmpxchg ptr %p, i32 %old, i32 %v acq_rel monotonic, align 4
  %got = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  %wk = cmpxchg weak volatile ptr @g, i32 1, i32 2 syncscope("singlethread") seq_cst seq_cst, align 4
  fence seq_cst
  fence syncscope("singlethread") acquire
  %l = load atomic i32, ptr %p acquire, align 4
  store atomic i32 %got, ptr %p release, align 4
  %sel = select i1 %ok, i32 %l, i32 %mx
  %r = add i32 %sel, %x
  ret i32 %r
}

define i32 @varargs(i32 %n, ...) {
entry:
  %ap = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %ap)
  %v = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %r = add i32 %v, %n
  ret i32 %r
}

declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
