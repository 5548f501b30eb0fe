; Unnamed values and blocks, numbered names and names that need quoting
; or escaping (spaces, quotes, backslashes, non-ASCII bytes).
define i32 @0(i32 %0) {
  %2 = add i32 %0, 1
  %3 = icmp sgt i32 %2, 5
  br i1 %3, label %4, label %6

4:
  %5 = mul i32 %2, 2
  br label %6

6:
  %7 = phi i32 [ %2, %1 ], [ %5, %4 ]
  ret i32 %7
}

define i32 @"quoted name"(i32 %"x y") {
"entry block":
  %"a\22b" = add i32 %"x y", 2
  br label %"back\5Cslash"

"back\5Cslash":
  %"tab\09here" = sub i32 %"a\22b", 1
  br label %"caf\C3\A9"

"caf\C3\A9":
  ret i32 %"tab\09here"
}

define void @"\01ctrl"() {
  br label %1
1:
  br label %named
named:
  br label %2
2:
  ret void
}
