; Every canonical type: half/bfloat/x86_fp80/fp128/ppc_fp128 floats,
; tokens, target extension types (UnknownTy), function pointers.
declare token @llvm.call.preallocated.setup(i32)
declare ptr @llvm.call.preallocated.arg(token, i32)
declare target("spirv.Event") @make_event()
declare void @take_event(target("spirv.Event"))
declare void @takes_pre(ptr)

define half @halfs(half %a, bfloat %b) {
entry:
  %bf = fpext bfloat %b to float
  %hf = fpext half %a to float
  %s = fadd float %bf, %hf
  %r = fptrunc float %s to half
  ret half %r
}

define x86_fp80 @long_double(x86_fp80 %a, fp128 %b, ppc_fp128 %c) {
entry:
  %b80 = fptrunc fp128 %b to x86_fp80
  %s = fmul x86_fp80 %a, %b80
  %c64 = fptrunc ppc_fp128 %c to double
  %c80 = fpext double %c64 to x86_fp80
  %r = fsub x86_fp80 %s, %c80
  ret x86_fp80 %r
}

define void @tokens() {
entry:
  %t = call token @llvm.call.preallocated.setup(i32 1)
  %a = call ptr @llvm.call.preallocated.arg(token %t, i32 0) preallocated(i32)
  call void @takes_pre(ptr preallocated(i32) %a) [ "preallocated"(token %t) ]
  ret void
}

define void @target_ext() {
entry:
  %e = call target("spirv.Event") @make_event()
  %f = freeze target("spirv.Event") %e
  call void @take_event(target("spirv.Event") %f)
  ret void
}

define ptr @fn_ptr(i1 %c) {
entry:
  %p = select i1 %c, ptr @halfs, ptr @tokens
  ret ptr %p
}
