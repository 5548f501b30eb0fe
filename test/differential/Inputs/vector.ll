; Fixed and scalable vector operations, vector compares and selects.
define <4 x float> @vec_math(<4 x float> %a, <4 x float> %b, float %s) {
entry:
  %ins = insertelement <4 x float> poison, float %s, i64 0
  %splat = shufflevector <4 x float> %ins, <4 x float> poison, <4 x i32> zeroinitializer
  %m = fmul <4 x float> %a, %splat
  %add = fadd <4 x float> %m, %b
  %neg = fneg <4 x float> %add
  %cmp = fcmp olt <4 x float> %neg, zeroinitializer
  %sel = select <4 x i1> %cmp, <4 x float> %a, <4 x float> %neg
  %e = extractelement <4 x float> %sel, i32 2
  %r = insertelement <4 x float> %sel, float %e, i32 3
  ret <4 x float> %r
}

define <8 x i16> @vec_int(<8 x i16> %x, <8 x i16> %y) {
entry:
  %a = add <8 x i16> %x, %y
  %s = shl <8 x i16> %a, <i16 1, i16 1, i16 1, i16 1, i16 2, i16 2, i16 2, i16 2>
  %c = icmp sgt <8 x i16> %s, %x
  %z = zext <8 x i1> %c to <8 x i16>
  %o = or <8 x i16> %z, %s
  %sh = shufflevector <8 x i16> %o, <8 x i16> %y, <8 x i32> <i32 0, i32 9, i32 2, i32 11, i32 4, i32 13, i32 6, i32 15>
  ret <8 x i16> %sh
}

define <vscale x 4 x i32> @scalable(<vscale x 4 x i32> %v, i32 %k) {
entry:
  %ins = insertelement <vscale x 4 x i32> poison, i32 %k, i64 0
  %splat = shufflevector <vscale x 4 x i32> %ins, <vscale x 4 x i32> poison, <vscale x 4 x i32> zeroinitializer
  %m = mul <vscale x 4 x i32> %v, %splat
  ret <vscale x 4 x i32> %m
}

define <2 x ptr> @vec_gep(ptr %base, <2 x i64> %idx) {
entry:
  %g = getelementptr i32, ptr %base, <2 x i64> %idx
  ret <2 x ptr> %g
}

define i32 @reduce(<4 x i32> %v) {
entry:
  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %v)
  ret i32 %r
}

declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
