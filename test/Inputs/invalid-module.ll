; Parses, but fails the verifier: the entry block has no terminator... is a
; parse error, so use a use that does not dominate its def instead.
define i32 @g(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  ret i32 %x
}
