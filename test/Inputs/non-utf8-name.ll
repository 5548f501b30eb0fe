define void @"f\FFx"() {
  ret void
}
