; A small C file compiled with: clang -g -O1 -S -emit-llvm -fno-ident
; (debug records, !dbg attachments and #dbg_value/#dbg_declare).
; ModuleID = 'dbg_sample.c'
source_filename = "dbg_sample.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%struct.point = type { i32, i32 }

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: read) uwtable
define dso_local noundef i32 @manhattan(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, i32 noundef %2) local_unnamed_addr #0 !dbg !13 {
    #dbg_value(ptr %0, !24, !DIExpression(), !29)
    #dbg_value(ptr %1, !25, !DIExpression(), !29)
    #dbg_value(i32 %2, !26, !DIExpression(), !29)
  %4 = load i32, ptr %0, align 4, !dbg !30, !tbaa !31
  %5 = load i32, ptr %1, align 4, !dbg !33, !tbaa !31
  %6 = sub nsw i32 %4, %5, !dbg !34
    #dbg_value(i32 %6, !27, !DIExpression(), !29)
  %7 = getelementptr inbounds nuw i8, ptr %0, i64 4, !dbg !35
  %8 = load i32, ptr %7, align 4, !dbg !35, !tbaa !36
  %9 = getelementptr inbounds nuw i8, ptr %1, i64 4, !dbg !37
  %10 = load i32, ptr %9, align 4, !dbg !37, !tbaa !36
  %11 = sub nsw i32 %8, %10, !dbg !38
    #dbg_value(i32 %11, !28, !DIExpression(), !29)
  %12 = tail call i32 @llvm.abs.i32(i32 %6, i1 true), !dbg !39
    #dbg_value(i32 %12, !27, !DIExpression(), !29)
  %13 = tail call i32 @llvm.abs.i32(i32 %11, i1 true), !dbg !41
    #dbg_value(i32 %13, !28, !DIExpression(), !29)
  %14 = add nuw nsw i32 %13, %12, !dbg !43
    #dbg_value(i32 %14, !44, !DIExpression(), !51)
    #dbg_value(i32 0, !49, !DIExpression(), !51)
    #dbg_value(i32 %2, !50, !DIExpression(), !51)
  %15 = tail call noundef i32 @llvm.smin.i32(i32 range(i32 0, -2147483648) %14, i32 %2), !dbg !53
  ret i32 %15, !dbg !55
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i32 @sum_points(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #1 !dbg !56 {
    #dbg_value(ptr %0, !60, !DIExpression(), !65)
    #dbg_value(i32 %1, !61, !DIExpression(), !65)
    #dbg_value(i32 0, !62, !DIExpression(), !65)
    #dbg_value(i32 0, !63, !DIExpression(), !66)
  %3 = icmp sgt i32 %1, 0, !dbg !67
  br i1 %3, label %4, label %6, !dbg !69

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !70
  br label %8, !dbg !71

6:                                                ; preds = %8, %2
  %7 = phi i32 [ 0, %2 ], [ %16, %8 ], !dbg !65
  ret i32 %7, !dbg !72

8:                                                ; preds = %4, %8
  %9 = phi i64 [ 0, %4 ], [ %17, %8 ]
  %10 = phi i32 [ 0, %4 ], [ %16, %8 ]
    #dbg_value(i64 %9, !63, !DIExpression(), !66)
    #dbg_value(i32 %10, !62, !DIExpression(), !65)
  %11 = getelementptr inbounds nuw %struct.point, ptr %0, i64 %9, !dbg !73
  %12 = load i32, ptr %11, align 4, !dbg !74, !tbaa !31
  %13 = getelementptr inbounds nuw i8, ptr %11, i64 4, !dbg !75
  %14 = load i32, ptr %13, align 4, !dbg !75, !tbaa !36
  %15 = mul nsw i32 %14, %12, !dbg !76
  %16 = add nsw i32 %15, %10, !dbg !77
    #dbg_value(i32 %16, !62, !DIExpression(), !65)
  %17 = add nuw nsw i64 %9, 1, !dbg !78
    #dbg_value(i64 %17, !63, !DIExpression(), !66)
  %18 = icmp eq i64 %17, %5, !dbg !70
  br i1 %18, label %6, label %8, !dbg !79, !llvm.loop !80
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smin.i32(i32, i32) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.abs.i32(i32, i1 immarg) #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.errno.tbaa = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "dbg_sample.c", directory: "/src", checksumkind: CSK_MD5, checksum: "14d0f6ff25fad20b8b70b77ee0cc280d")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = distinct !DISubprogram(name: "manhattan", scope: !1, file: !1, line: 11, type: !14, scopeLine: 11, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !23, keyInstructions: true)
!14 = !DISubroutineType(types: !15)
!15 = !{!16, !17, !17, !16}
!16 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!17 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !18, size: 64)
!18 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !19)
!19 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "point", file: !1, line: 1, size: 64, elements: !20)
!20 = !{!21, !22}
!21 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !19, file: !1, line: 1, baseType: !16, size: 32)
!22 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !19, file: !1, line: 1, baseType: !16, size: 32, offset: 32)
!23 = !{!24, !25, !26, !27, !28}
!24 = !DILocalVariable(name: "a", arg: 1, scope: !13, file: !1, line: 11, type: !17)
!25 = !DILocalVariable(name: "b", arg: 2, scope: !13, file: !1, line: 11, type: !17)
!26 = !DILocalVariable(name: "limit", arg: 3, scope: !13, file: !1, line: 11, type: !16)
!27 = !DILocalVariable(name: "dx", scope: !13, file: !1, line: 12, type: !16)
!28 = !DILocalVariable(name: "dy", scope: !13, file: !1, line: 13, type: !16)
!29 = !DILocation(line: 0, scope: !13)
!30 = !DILocation(line: 12, column: 15, scope: !13)
!31 = !{!32, !10, i64 0}
!32 = !{!"point", !10, i64 0, !10, i64 4}
!33 = !DILocation(line: 12, column: 22, scope: !13)
!34 = !DILocation(line: 12, column: 17, scope: !13, atomGroup: 1, atomRank: 2)
!35 = !DILocation(line: 13, column: 15, scope: !13)
!36 = !{!32, !10, i64 4}
!37 = !DILocation(line: 13, column: 22, scope: !13)
!38 = !DILocation(line: 13, column: 17, scope: !13, atomGroup: 2, atomRank: 2)
!39 = !DILocation(line: 14, column: 10, scope: !40, atomGroup: 3, atomRank: 1)
!40 = distinct !DILexicalBlock(scope: !13, file: !1, line: 14, column: 7)
!41 = !DILocation(line: 16, column: 10, scope: !42, atomGroup: 5, atomRank: 1)
!42 = distinct !DILexicalBlock(scope: !13, file: !1, line: 16, column: 7)
!43 = !DILocation(line: 18, column: 19, scope: !13)
!44 = !DILocalVariable(name: "v", arg: 1, scope: !45, file: !1, line: 3, type: !16)
!45 = distinct !DISubprogram(name: "clamp", scope: !1, file: !1, line: 3, type: !46, scopeLine: 3, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !48, keyInstructions: true)
!46 = !DISubroutineType(types: !47)
!47 = !{!16, !16, !16, !16}
!48 = !{!44, !49, !50}
!49 = !DILocalVariable(name: "lo", arg: 2, scope: !45, file: !1, line: 3, type: !16)
!50 = !DILocalVariable(name: "hi", arg: 3, scope: !45, file: !1, line: 3, type: !16)
!51 = !DILocation(line: 0, scope: !45, inlinedAt: !52)
!52 = distinct !DILocation(line: 18, column: 10, scope: !13)
!53 = !DILocation(line: 6, column: 9, scope: !54, inlinedAt: !52, atomGroup: 3, atomRank: 1)
!54 = distinct !DILexicalBlock(scope: !45, file: !1, line: 6, column: 7)
!55 = !DILocation(line: 18, column: 3, scope: !13, atomGroup: 8, atomRank: 1)
!56 = distinct !DISubprogram(name: "sum_points", scope: !1, file: !1, line: 21, type: !57, scopeLine: 21, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !59, keyInstructions: true)
!57 = !DISubroutineType(types: !58)
!58 = !{!16, !17, !16}
!59 = !{!60, !61, !62, !63}
!60 = !DILocalVariable(name: "p", arg: 1, scope: !56, file: !1, line: 21, type: !17)
!61 = !DILocalVariable(name: "n", arg: 2, scope: !56, file: !1, line: 21, type: !16)
!62 = !DILocalVariable(name: "s", scope: !56, file: !1, line: 22, type: !16)
!63 = !DILocalVariable(name: "i", scope: !64, file: !1, line: 23, type: !16)
!64 = distinct !DILexicalBlock(scope: !56, file: !1, line: 23, column: 3)
!65 = !DILocation(line: 0, scope: !56)
!66 = !DILocation(line: 0, scope: !64)
!67 = !DILocation(line: 23, column: 21, scope: !68, atomGroup: 10, atomRank: 1)
!68 = distinct !DILexicalBlock(scope: !64, file: !1, line: 23, column: 3)
!69 = !DILocation(line: 23, column: 3, scope: !64, atomGroup: 11, atomRank: 1)
!70 = !DILocation(line: 23, column: 21, scope: !68, atomGroup: 3, atomRank: 1)
!71 = !DILocation(line: 23, column: 3, scope: !64)
!72 = !DILocation(line: 25, column: 3, scope: !56, atomGroup: 9, atomRank: 1)
!73 = !DILocation(line: 24, column: 10, scope: !68)
!74 = !DILocation(line: 24, column: 15, scope: !68)
!75 = !DILocation(line: 24, column: 24, scope: !68)
!76 = !DILocation(line: 24, column: 17, scope: !68)
!77 = !DILocation(line: 24, column: 7, scope: !68, atomGroup: 5, atomRank: 2)
!78 = !DILocation(line: 23, column: 26, scope: !68, atomGroup: 6, atomRank: 2)
!79 = !DILocation(line: 23, column: 3, scope: !64, atomGroup: 4, atomRank: 1)
!80 = distinct !{!80, !71, !81, !82, !83}
!81 = !DILocation(line: 24, column: 24, scope: !64)
!82 = !{!"llvm.loop.mustprogress"}
!83 = !{!"llvm.loop.unroll.disable"}
