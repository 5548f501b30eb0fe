# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Bundled vocabularies.

Attributes are paths to vocabulary files inside the package, to pass to
``ir2vec.loadVocab`` (``ir2vec.loadMIRVocab`` for ``mir2vecX86_64``).
``seedEmbedding75D`` is irtk's default 75-dimension vocabulary (the name is
upstream's; the contents are irtk's). Each file is copied in when the
package is built, if the build tree has it; otherwise the attribute still
exists and loading it says the file is missing.
"""

import os as _os

_DATA_DIR = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "vocab_data")

seedEmbedding75D: str = _os.path.join(_DATA_DIR, "ir2vec-75d.json")

#: irtk's MIR2Vec vocabulary for x86-64 (75 dimensions), for
#: ``ir2vec.loadMIRVocab``; ``initMIREmbedding`` uses it without a vocabulary
#: for x86-64 modules.
mir2vecX86_64: str = _os.path.join(_DATA_DIR, "mir2vec-x86-64-75d.json")

_BUNDLED = (seedEmbedding75D, mir2vecX86_64)


def isAvailable(path) -> bool:
    """False only for a bundled vocabulary this package was built without."""
    try:
        path = _os.fspath(path)
    except TypeError:
        return True  # Not a path at all: loadVocab reports the type error.
    return path not in _BUNDLED or _os.path.isfile(path)
