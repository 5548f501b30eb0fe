; Every cast, unary and binary opcode (including ptrtoaddr, new in LLVM 22),
; freeze, constant expressions and poison/undef operands.
@g = global [4 x i64] zeroinitializer

define i64 @casts(i64 %x, double %d, ptr %p, ptr addrspace(1) %q) {
entry:
  %t = trunc i64 %x to i32
  %z = zext i32 %t to i64
  %s = sext i32 %t to i64
  %ft = fptrunc double %d to float
  %fe = fpext float %ft to double
  %fu = fptoui double %fe to i32
  %fs = fptosi double %fe to i64
  %uf = uitofp i32 %fu to float
  %sf = sitofp i64 %fs to double
  %pi = ptrtoint ptr %p to i64
  %pa = ptrtoaddr ptr %p to i64
  %ip = inttoptr i64 %pi to ptr
  %bc = bitcast double %sf to i64
  %as = addrspacecast ptr addrspace(1) %q to ptr
  %ai = ptrtoint ptr %as to i64
  %uf.d = fpext float %uf to double
  %ufi = bitcast double %uf.d to i64
  %r0 = add i64 %z, %s
  %r1 = add i64 %r0, %pa
  %r2 = add i64 %r1, %bc
  %r3 = add i64 %r2, %ai
  %r4 = add i64 %r3, %ufi
  %ipi = ptrtoint ptr %ip to i64
  %r5 = add i64 %r4, %ipi
  ret i64 %r5
}

define i32 @binops(i32 %a, i32 %b, float %x, float %y) {
entry:
  %add = add i32 %a, %b
  %sub = sub nuw i32 %add, %b
  %mul = mul i32 %sub, %a
  %ud = udiv exact i32 %mul, 3
  %sd = sdiv i32 %ud, %b
  %ur = urem i32 %sd, 7
  %sr = srem i32 %ur, -5
  %shl = shl i32 %sr, 2
  %lsh = lshr i32 %shl, 1
  %ash = ashr exact i32 %lsh, 1
  %and = and i32 %ash, 255
  %or = or disjoint i32 %and, 256
  %xor = xor i32 %or, -1
  %fa = fadd float %x, %y
  %fsb = fsub float %fa, 1.0
  %fm = fmul nnan float %fsb, %y
  %fd = fdiv arcp float %fm, 3.0
  %fr = frem float %fd, 2.0
  %fn = fneg float %fr
  %fi = fptosi float %fn to i32
  %fz = freeze i32 %fi
  %fp = freeze i32 poison
  %u = add i32 %xor, undef
  %r = add i32 %u, %fz
  %r2 = add i32 %r, %fp
  ret i32 %r2
}

define i64 @constexprs() {
entry:
  %a = add i64 ptrtoint (ptr @g to i64), 8
  %b = load i64, ptr getelementptr (i8, ptr @g, i64 16), align 8
  %c = add i64 %a, %b
  ret i64 %c
}
