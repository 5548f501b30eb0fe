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


def plugin_host(tool, leaks):
    """The command for LLVM's `tool`, which may load our plugin.

    In a sanitized build (IRTK_SANITIZE) the plugin needs ASan's runtime
    loaded first, and LLVM's tools are not sanitized: the runtime is
    preloaded into them. `leaks`: whether LeakSanitizer stays on (clang
    frees nothing at exit, on purpose: -disable-free).
    """
    return host_command(os.path.join(config.llvm_tools_dir, tool), leaks)


def host_command(path, leaks):
    """`path`, a program that is not sanitized but may load our sanitized
    code, with ASan's runtime preloaded in a sanitized build."""
    if not config.irtk_sanitizer_preload:
        return path
    env = "env LD_PRELOAD=" + config.irtk_sanitizer_preload
    if not leaks:
        env += " ASAN_OPTIONS=detect_leaks=0"
    return env + " " + path


# Every RUN line that loads the plugin starts its host with one of these.
config.substitutions.append(("%clang", plugin_host("clang", leaks=False)))
config.substitutions.append(("%opt", plugin_host("opt", leaks=True)))
config.substitutions.append(("%llc", plugin_host("llc", leaks=True)))
# Python importing our (sanitized) module; LeakSanitizer off, as in the
# python-* tests: python3 frees little at exit by design.
config.substitutions.append(("%python_host", host_command(sys.executable,
                                                          leaks=False)))
# The training library's command line (ir2vec.mlgo), from this build; its
# directory, for the recipes that run it.
python_dir = os.path.join(config.irtk_obj_root, "python")
config.substitutions.append(("%mlgo", "env PYTHONPATH={} {} -m ir2vec.mlgo".format(
    python_dir, host_command(sys.executable, leaks=False))))
config.substitutions.append(("%irtk_pythonpath", python_dir))
