define void @broken() {
  %x = add i32 1
  ret void
}
