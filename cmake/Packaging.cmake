#===- cmake/Packaging.cmake - the .deb (cpack -G DEB) -----------------------===#
#
# `cpack -G DEB` in the build directory makes irtk_<version>_<arch>.deb: the
# tools, the plugin, the vocabularies, the Python package for the
# interpreter the module was built for (Debian's: /usr/lib/python3.X/
# dist-packages), the man pages and the docs, under /usr. Its dependencies
# come from dpkg-shlibdeps (libllvm22, Boost.Program_options, libgomp1, the
# C++ runtime) plus python3 of that minor version and python3-numpy.
# Headers, static libraries and the CMake package (component development)
# stay out of it: they belong with llvm-22-dev, to a -dev package.
#
#===-------------------------------------------------------------------------===#
set(CPACK_PACKAGE_NAME irtk)
set(CPACK_PACKAGE_VENDOR "IR2Vec Toolkit")
set(CPACK_PACKAGE_CONTACT "IR2Vec Toolkit maintainers <irtk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "IR2Vec embeddings of LLVM IR: llvm-ir2vec, plugin, Python module")
set(CPACK_PACKAGE_DESCRIPTION
  "irtk reimplements LLVM 22's IR2Vec embeddings: a drop-in llvm-ir2vec, \
irtk-vocab (vocabularies and TransE training), irtk-similarity (search over \
embedding stores), irtk-train (advisor models), an opt/clang/llc pass plugin \
and the ir2vec Python module, with a default 75-dimension vocabulary.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

# One package of the run-time components.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL runtime docs)
if(IRTK_BUILD_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps reads the ELF files' needs (libllvm22 among them); the
# Python module is loaded by python3, which it cannot know.
if(IRTK_BUILD_PYTHON AND IRTK_PYTHON_VERSION)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= ${IRTK_PYTHON_VERSION}), \
python3 (<< ${IRTK_PYTHON_NEXT_VERSION}), python3-numpy")
endif()
# python3-torch: ir2vec.mlgo.torchmodel (PyTorch models for the advisors).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
  "llvm-${LLVM_VERSION_MAJOR}, clang-${LLVM_VERSION_MAJOR}, python3-torch")

include(CPack)
