#===- docs/ManPage.cmake - one man page from a CommandGuide page ------------===#
#
# cmake -DPANDOC=<pandoc> -DTOOL=<name> -DVERSION=<v> -DIN=<md> -DOUT=<.1>
#       -P ManPage.cmake
#
# Drops the page's "# tool - summary" line (the title is TOOL), makes its
# "##" sections the man page's sections and its "###" ones subsections.
#
#===-------------------------------------------------------------------------===#
file(READ "${IN}" text)
string(REGEX REPLACE "^# [^\n]*\n" "" text "${text}")
set(body "${OUT}.md")
file(WRITE "${body}" "${text}")
execute_process(
  COMMAND "${PANDOC}" --standalone --from=gfm --to=man
    --shift-heading-level-by=-1
    --metadata=title:${TOOL} --metadata=section:1
    "--metadata=header:IR2Vec Toolkit" "--metadata=footer:irtk ${VERSION}"
    --output=${OUT} ${body}
  RESULT_VARIABLE status)
file(REMOVE "${body}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "pandoc failed on ${IN}: ${status}")
endif()
