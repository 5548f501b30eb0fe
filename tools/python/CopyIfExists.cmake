#===- CopyIfExists.cmake - copy SRC to DST if SRC exists, else remove DST ---===#
#
# cmake -DSRC=<file> -DDST=<file> -P CopyIfExists.cmake
#
#===-------------------------------------------------------------------------===#
if(EXISTS "${SRC}")
  get_filename_component(dst_dir "${DST}" DIRECTORY)
  file(MAKE_DIRECTORY "${dst_dir}")
  file(COPY_FILE "${SRC}" "${DST}" ONLY_IF_DIFFERENT)
else()
  file(REMOVE "${DST}")
endif()
