# -*- Python -*-
# lit configuration for irtk: our tools come first on PATH (our llvm-ir2vec
# shadows upstream's on purpose), then LLVM 22's tools.
import os
import sys

import lit.formats

config.name = "irtk"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".test", ".c"]
config.excludes = ["Inputs", "unit", "differential", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.irtk_obj_root, "test")

path = os.pathsep.join(
    [config.irtk_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])]
)
config.environment["PATH"] = path

plugin = os.path.join(config.irtk_lib_dir, "IRTKPlugin.so")
config.substitutions.append(("%irtk_plugin", plugin))
config.substitutions.append(("%irtk_python", sys.executable))
config.substitutions.append(("%irtk_bin", config.irtk_tools_dir))
config.substitutions.append(("%irtk_src", os.path.dirname(config.test_source_root)))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%upstream_ir2vec", os.path.join(config.llvm_tools_dir, "llvm-ir2vec")))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
