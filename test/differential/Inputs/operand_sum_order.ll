; Two operands of the same kind: whether their vectors are summed first and
; then added to opcode + type, or added one by one, shows in the last bits
; (and, with the vocabulary run.py builds for it, in the second decimal).
define i32 @add2(i32 %a, i32 %b) {
entry:
  %s = add i32 %a, %b
  ret i32 %s
}
