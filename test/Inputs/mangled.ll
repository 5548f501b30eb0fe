define i32 @_Z3addii(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}
define i32 @_Z3addff(float %a, float %b) {
  ret i32 0
}
