; Declarations only: no function has a body.
declare i32 @puts(ptr)
declare void @exit(i32) noreturn
@msg = constant [3 x i8] c"hi\00"
