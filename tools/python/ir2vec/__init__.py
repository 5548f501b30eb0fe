# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""IR2Vec embeddings of LLVM IR, computed by irtk.

The API is that of LLVM main's ``ir2vec`` bindings, so scripts written for
upstream run unchanged::

    import ir2vec
    vocab = ir2vec.loadVocab(ir2vec.vocab.seedEmbedding75D)
    tool = ir2vec.initEmbedding(filename="foo.ll",
                                mode=ir2vec.IR2VecKind.FlowAware,
                                vocab=vocab)
    tool.getFuncEmbMap()        # {function name: numpy.ndarray (float64)}
    tool.getProgramVector()     # the module: the sum of its functions

Without ``vocab``, the bundled default vocabulary is used, as by the CLI.
``embedFiles`` embeds many files in parallel (``embedFilesIter`` yields each
result as it completes); ``loadStore`` reads the stores ``llvm-ir2vec
--format=npy`` writes, of LLVM IR or machine IR. Machine IR (MIR2Vec), as
``llvm-ir2vec --mode=mir`` embeds it::

    tool = ir2vec.initMIREmbedding("foo.mir")   # or foo.ll, lowered
    tool.getFuncEmbMap()        # {function name: numpy.ndarray (float64)}

``embedMIRFiles`` (and ``embedMIRFilesIter``) embeds many of them in
parallel. See docs/Python.md.

This is irtk's ``ir2vec``; IITH IR2Vec's pip package has the same name and
another API.
"""

import functools as _functools
import os as _os
import sys as _sys


def _extensionError(error):
    """Why the extension did not load, and how to rebuild it."""
    try:
        from . import _build_info as info
    except ImportError:
        return (f"{error}. This ir2vec package is incomplete (no "
                "_build_info.py): build it with pip or CMake (docs/Python.md)")
    here = f"{_sys.version_info[0]}.{_sys.version_info[1]}"
    where = _os.path.dirname(_os.path.abspath(__file__))
    if here == info.PYTHON_VERSION and _os.path.exists(
            _os.path.join(where, info.EXTENSION)):
        return (f"{error}. ir2vec's extension {info.EXTENSION} is for this "
                f"Python version ({here}) but does not load; it links "
                "libLLVM.so.22.1 (Debian package libllvm22)")
    return (
        f"ir2vec's extension was built for Python {info.PYTHON_VERSION} "
        f"({info.PYTHON}: {info.EXTENSION}), and this is Python {here} "
        f"({_sys.executable}), which cannot load it. Run it with "
        f"{info.PYTHON}, or build ir2vec for this Python: "
        f"'{_sys.executable} -m pip install --no-build-isolation <irtk "
        "source tree>', or CMake with "
        f"-DPython3_EXECUTABLE={_sys.executable} (docs/Python.md)")


try:
    from ._ir2vec import (
        EmbedFilesIterator,
        FlowAware,
        IR2VecKind,
        IR2VecTool,
        InvalidModeError,
        MIR2VecTool,
        MIRVocab,
        Symbolic,
        Vocab,
        __version__,
        embedFiles,
        embedFilesIter,
        embedMIRFiles,
        embedMIRFilesIter,
        initEmbedding,
        initMIREmbedding,
    )
    from ._ir2vec import loadMIRVocab as _loadMIRVocab
    from ._ir2vec import loadVocab as _loadVocab
except ImportError as _e:
    raise ImportError(_extensionError(_e)) from None

# After the extension (a wrong Python is the first thing to fix): its
# vectors are numpy arrays, which it imports at the first one.
try:
    import numpy as _numpy  # noqa: F401  (the extension returns arrays)
except ImportError as _e:
    raise ImportError(
        f"ir2vec needs numpy, which this Python ({_sys.executable}) cannot "
        f"import ({_e}). Install it: on Debian, apt install python3-numpy "
        "for /usr/bin/python3; otherwise python -m pip install numpy"
    ) from None

from . import vocab
from .store import Index, Store, StoreError, loadStore

__all__ = [
    "EmbedFilesIterator",
    "FlowAware",
    "IR2VecKind",
    "IR2VecTool",
    "Index",
    "InvalidModeError",
    "MIR2VecTool",
    "MIRVocab",
    "SEED_EMBEDDING_75D",
    "Store",
    "StoreError",
    "Symbolic",
    "Vocab",
    "embedFiles",
    "embedFilesIter",
    "embedMIRFiles",
    "embedMIRFilesIter",
    "getProgramVector",
    "initEmbedding",
    "initMIREmbedding",
    "loadMIRVocab",
    "loadStore",
    "loadVocab",
    "vocab",
    # Bound on purpose and listed so that pyflakes (scripts/lint.sh) sees
    # them used: the extension's version, and numpy, imported above only to
    # fail early with a clear message.
    "__version__",
    "_numpy",
]

#: The bundled default vocabulary (75 dimensions), under the name one
#: revision of upstream's package used; ``vocab.seedEmbedding75D`` is the
#: same path.
SEED_EMBEDDING_75D: str = vocab.seedEmbedding75D


def _checkAvailable(vocabPath):
    """Raises ValueError for a bundled vocabulary this package lacks."""
    if not vocab.isAvailable(vocabPath):
        raise ValueError(
            "Failed to load vocabulary: the bundled default vocabulary "
            f"'{vocabPath}' was not available when this ir2vec package was "
            "built; pass the path of a vocabulary file instead"
        )


def loadVocab(vocabPath, *, opcWeight=1.0, typeWeight=0.5, argWeight=0.2):
    """Load an IR2Vec vocabulary file (upstream's JSON format).

    ``vocabPath`` is a path (str or os.PathLike), for example
    ``ir2vec.vocab.seedEmbedding75D``. The weights scale the Opcodes, Types
    and Arguments sections as upstream's ``-ir2vec-*-weight`` options do.
    Raises ValueError for an empty path or a missing or invalid file.
    """
    _checkAvailable(vocabPath)
    return _loadVocab(
        vocabPath, opcWeight=opcWeight, typeWeight=typeWeight, argWeight=argWeight
    )


def loadMIRVocab(vocabPath, *, opcWeight=1.0, commonOperandWeight=1.0,
                 regOperandWeight=1.0):
    """A MIR2Vec vocabulary file (upstream's JSON format) for initMIREmbedding.

    ``vocabPath`` is a path (str or os.PathLike), for example
    ``ir2vec.vocab.mir2vecX86_64``. The weights scale its sections as
    upstream's ``-mir2vec-*-weight`` options do. Its entities are a target's
    opcodes and register classes, so it is read for the target of each
    module it embeds; here it only has to be readable. Raises ValueError for
    an empty path or a file that cannot be read.
    """
    _checkAvailable(vocabPath)
    return _loadMIRVocab(
        vocabPath,
        opcWeight=opcWeight,
        commonOperandWeight=commonOperandWeight,
        regOperandWeight=regOperandWeight,
    )


def getProgramVector(tool):
    """``tool.getProgramVector()``: the module's vector (the sum of its
    functions' vectors) of an IR2VecTool or MIR2VecTool, under the name and
    in the call shape of IITH IR2Vec's package,
    ``ir2vec.getProgramVector(obj)``. A numpy array (IITH's gives a list)."""
    if not isinstance(tool, (IR2VecTool, MIR2VecTool)):
        raise TypeError("getProgramVector takes an ir2vec.IR2VecTool or "
                        "MIR2VecTool (from initEmbedding or initMIREmbedding), "
                        f"not {type(tool).__name__}")
    return tool.getProgramVector()


@_functools.lru_cache(maxsize=None)
def _defaultVocab():
    """The bundled default vocabulary, loaded once: what initEmbedding,
    IR2VecTool, embedFiles and embedFilesIter use without vocab or
    vocabPath."""
    return loadVocab(vocab.seedEmbedding75D)
