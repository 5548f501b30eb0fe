define i32 @bad() {
  ret void
}
