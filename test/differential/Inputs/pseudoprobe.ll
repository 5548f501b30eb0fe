; Pseudo probes are calls that instructionsWithoutDebug() skips.
declare void @llvm.pseudoprobe(i64, i64, i32, i64)

define i32 @probed(i32 %x) !dbg !3 {
entry:
  call void @llvm.pseudoprobe(i64 -2624081020897602054, i64 1, i32 0, i64 -1)
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %pos, label %neg

pos:
  call void @llvm.pseudoprobe(i64 -2624081020897602054, i64 2, i32 0, i64 -1)
  %p = add i32 %x, 1
  ret i32 %p

neg:
  call void @llvm.pseudoprobe(i64 -2624081020897602054, i64 3, i32 0, i64 -1)
  ret i32 0
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!llvm.pseudo_probe_desc = !{!5}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "probe.c", directory: "/tmp")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = distinct !DISubprogram(name: "probed", scope: !1, file: !1, line: 1, type: !4, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!4 = !DISubroutineType(types: !{})
!5 = !{i64 -2624081020897602054, i64 4294967295, !"probed"}
