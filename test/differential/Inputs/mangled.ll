; C++ (Itanium), MSVC, Rust and D mangled names, and names that look
; mangled but are not.
%class.Counter = type { i32 }

define linkonce_odr i32 @_ZN7Counter4nextEv(ptr %this) {
entry:
  %v = load i32, ptr %this, align 4
  %n = add nsw i32 %v, 1
  store i32 %n, ptr %this, align 4
  ret i32 %n
}

define i32 @_Z3addii(i32 %a, i32 %b) {
entry:
  %s = add nsw i32 %a, %b
  ret i32 %s
}

define i32 @_ZNSt6vectorIiSaIiEE9push_backERKi(ptr %v, ptr %x) {
entry:
  %l = load i32, ptr %x, align 4
  ret i32 %l
}

define i32 @"?compute@@YAHH@Z"(i32 %x) {
entry:
  %r = mul i32 %x, %x
  ret i32 %r
}

define void @_RNvCs1234_7mycrate3foo() {
entry:
  ret void
}

define void @_D3foo3barFZv() {
entry:
  ret void
}

define void @_Znotmangled() {
entry:
  ret void
}

define i32 @main() {
entry:
  %c = alloca %class.Counter, align 4
  store i32 0, ptr %c, align 4
  %a = call i32 @_ZN7Counter4nextEv(ptr %c)
  %b = call i32 @_Z3addii(i32 %a, i32 2)
  %d = call i32 @"?compute@@YAHH@Z"(i32 %b)
  ret i32 %d
}

declare void @_ZdlPv(ptr)
