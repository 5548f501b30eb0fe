; Itanium invoke/landingpad/resume and Windows-style funclets
; (catchswitch, catchpad, catchret, cleanuppad, cleanupret).
declare i32 @__gxx_personality_v0(...)
declare i32 @__CxxFrameHandler3(...)
declare void @may_throw(i32)
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
@_ZTIi = external constant ptr

define i32 @itanium(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw(i32 %x)
          to label %cont unwind label %lpad

cont:
  %y = add i32 %x, 1
  invoke void @may_throw(i32 %y)
          to label %done unwind label %lpad

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr @_ZTIi
  %exn = extractvalue { ptr, i32 } %lp, 0
  %sel = extractvalue { ptr, i32 } %lp, 1
  %is.int = icmp eq i32 %sel, 1
  br i1 %is.int, label %catch, label %rethrow

catch:
  %p = call ptr @__cxa_begin_catch(ptr %exn)
  %v = load i32, ptr %p, align 4
  call void @__cxa_end_catch()
  br label %done

rethrow:
  resume { ptr, i32 } %lp

done:
  %r = phi i32 [ %y, %cont ], [ %v, %catch ]
  ret i32 %r
}

define void @funclets() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 1)
          to label %exit unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup

handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  call void @may_throw(i32 2) [ "funclet"(token %cp) ]
  catchret from %cp to label %exit

cleanup:
  %cl = cleanuppad within none []
  call void @may_throw(i32 3) [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller

exit:
  ret void
}

define i32 @callbr_asm(i32 %x) {
entry:
  %r = callbr i32 asm "", "=r,r,!i"(i32 %x)
          to label %normal [label %indirect]

normal:
  ret i32 %r

indirect:
  ret i32 0
}
