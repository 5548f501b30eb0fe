# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Inputs of irtk-train's rows, made once per table run: a training log
(the inline advisor's, from opt with the plugin), a --logs-from list naming
it, and an evolution-strategies checkpoint started from MODEL. Each
function returns the path of a file in a directory removed at exit; the
tables copy it into a row's directory."""

import atexit
import functools
import os
import shutil
import subprocess
import tempfile

from harness import INPUTS, env_path, llvm_tool, tool

MODEL = str(INPUTS / "advisors" / "always.json")
_DIR = tempfile.mkdtemp(prefix="irtk-hostile-trained-")
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)


def _made(name, argv):
    path = os.path.join(_DIR, name)
    subprocess.run([a.replace("{out}", path) for a in argv], check=True,
                   stdout=subprocess.DEVNULL)
    return path


def _written(name, text):
    path = os.path.join(_DIR, name)
    with open(path, "w") as f:
        f.write(text)
    return path


@functools.lru_cache(None)
def log():
    return _made("a.log", [
        llvm_tool("opt"), "-load-pass-plugin=" + env_path("IRTK_PLUGIN"),
        "-passes=default<Oz>", "-irtk-inline-policy=default",
        "-irtk-inline-embedding=none", "-irtk-inline-log={out}",
        str(INPUTS / "advisors" / "inline-scope.ll"), "-o", os.devnull])


@functools.lru_cache(None)
def log_list():
    """A --logs-from list naming a.log beside it."""
    return _written("list", "a.log\n")


@functools.lru_cache(None)
def checkpoint(perturbations=2):
    return _made(f"c{perturbations}.json", [
        tool("irtk-train"), "es-start", "--model", MODEL, "-o", "{out}",
        "--perturbations", str(perturbations)])


@functools.lru_cache(None)
def rewards():
    """Rewards for a step of checkpoint()'s two candidates."""
    return _written("r.txt", "1\n2\n")


@functools.lru_cache(None)
def stepped_checkpoint():
    """checkpoint() after one step: Adam has moments."""
    path = os.path.join(_DIR, "stepped.json")
    shutil.copyfile(checkpoint(), path)
    subprocess.run([tool("irtk-train"), "es-update", "--checkpoint", path,
                    "--rewards", rewards()], check=True)
    return path


def changed_checkpoint(name, change):
    """A function that makes stepped_checkpoint() with `change` applied to
    its JSON (a dict), as NAME, with numbers as Python writes them (1e999
    reads as infinity)."""
    @functools.lru_cache(None)
    def make():
        import json
        with open(stepped_checkpoint()) as f:
            state = json.load(f)
        change(state)
        path = os.path.join(_DIR, name)
        with open(path, "w") as f:
            f.write(json.dumps(state).replace("Infinity", "1e999"))
        return path
    return make


@functools.lru_cache(None)
def shifted_model():
    """MODEL with another normalisation: the same shape, another model."""
    import json
    with open(MODEL) as f:
        model = json.load(f)
    model["inputs"][0]["mean"] = [1]
    path = os.path.join(_DIR, "shifted.json")
    with open(path, "w") as f:
        json.dump(model, f)
    return path


@functools.lru_cache(None)
def corpus_description():
    """A corpus of one module (its bitcode need not exist for a run that
    stops before compiling)."""
    return _written("corpus_description.json", '{"modules": ["a"]}\n')
