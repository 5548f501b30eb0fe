; Old-style debug intrinsic calls (llvm.dbg.value/declare/label), which the
; IR reader turns into debug records, next to ordinary instructions.
declare void @llvm.dbg.value(metadata, metadata, metadata)
declare void @llvm.dbg.declare(metadata, metadata, metadata)
declare void @llvm.dbg.label(metadata)

define i32 @f(i32 %a) !dbg !5 {
entry:
  %slot = alloca i32, align 4
  call void @llvm.dbg.declare(metadata ptr %slot, metadata !9, metadata !DIExpression()), !dbg !11
  store i32 %a, ptr %slot, align 4, !dbg !11
  call void @llvm.dbg.value(metadata i32 %a, metadata !9, metadata !DIExpression()), !dbg !11
  %b = add i32 %a, 1, !dbg !12
  call void @llvm.dbg.label(metadata !13), !dbg !12
  call void @llvm.dbg.value(metadata i32 %b, metadata !9, metadata !DIExpression()), !dbg !12
  ret i32 %b, !dbg !12
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, enums: !2)
!1 = !DIFile(filename: "f.c", directory: "/src")
!2 = !{}
!3 = !{i32 2, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !2)
!6 = !DISubroutineType(types: !7)
!7 = !{!8, !8}
!8 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!9 = !DILocalVariable(name: "a", arg: 1, scope: !5, file: !1, line: 1, type: !8)
!11 = !DILocation(line: 1, column: 1, scope: !5)
!12 = !DILocation(line: 2, column: 3, scope: !5)
!13 = !DILabel(scope: !5, name: "here", file: !1, line: 2)
