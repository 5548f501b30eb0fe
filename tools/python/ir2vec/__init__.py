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

``embedFiles`` embeds many files in parallel; ``loadStore`` reads the stores
``llvm-ir2vec --format=npy`` writes, of LLVM IR or machine IR. See
docs/Python.md.
"""

import os as _os

from . import vocab
from .store import Store, StoreError, loadStore
from ._ir2vec import (
    FlowAware,
    IR2VecKind,
    IR2VecTool,
    InvalidModeError,
    Symbolic,
    Vocab,
    __version__,
    embedFiles,
    initEmbedding,
)
from ._ir2vec import loadVocab as _loadVocab

__all__ = [
    "FlowAware",
    "IR2VecKind",
    "IR2VecTool",
    "InvalidModeError",
    "SEED_EMBEDDING_75D",
    "Store",
    "StoreError",
    "Symbolic",
    "Vocab",
    "embedFiles",
    "initEmbedding",
    "loadStore",
    "loadVocab",
    "vocab",
]

#: The bundled default vocabulary (75 dimensions), under the name one
#: revision of upstream's package used; ``vocab.seedEmbedding75D`` is the
#: same path.
SEED_EMBEDDING_75D: str = vocab.seedEmbedding75D


def loadVocab(vocabPath, *, opcWeight=1.0, typeWeight=0.5, argWeight=0.2):
    """Load an IR2Vec vocabulary file (upstream's JSON format).

    ``vocabPath`` is a path (str or os.PathLike), for example
    ``ir2vec.vocab.seedEmbedding75D``. The weights scale the Opcodes, Types
    and Arguments sections as upstream's ``-ir2vec-*-weight`` options do.
    Raises ValueError for an empty path or a missing or invalid file.
    """
    if not vocab.isAvailable(vocabPath):
        raise ValueError(
            "Failed to load vocabulary: the bundled default vocabulary "
            f"'{vocabPath}' was not available when this ir2vec package was "
            "built; pass the path of a vocabulary file instead"
        )
    return _loadVocab(
        vocabPath, opcWeight=opcWeight, typeWeight=typeWeight, argWeight=argWeight
    )
