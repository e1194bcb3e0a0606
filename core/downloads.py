"""Each download of ④ as bytes: pure functions of a lab, the sentences' text and the page's language.

The download buttons call these (sections/share_section.py), and so can a script: on the session's
explorer (``at.session_state["_ws"]`` under AppTest, docs/scripting.md) or on one it built, with no
Streamlit involved::

    >>> ex = at.session_state["_ws"]
    >>> data = file_bytes("w_csv", ex.lab, ex.text, "en")     # what the "W as CSV" button gives
    >>> files = explorer_files(ex, "en")                      # every kind in KINDS → its bytes

The files are built when called (W as CSV at 100,000 × 300 is hundreds of megabytes): the page
wraps each call in a job of the server's budget (core/exports.py); a script calls them directly.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from core.codegen import script_for
from core.notebook import notebook_for
from core.projector_tsv import metadata_tsv, vectors_tsv
from core.state import export_state
from core.training import Lab
from core.weights_csv import weights_csv

KINDS = ("state", "code", "w_csv", "projector_vectors", "projector_metadata", "notebook")
# The file name each download button gives (components/share.py names the same files).
FILE_NAMES = MappingProxyType({"state": "embedding_state.json", "code": "embedding_explorer.py",
                               "w_csv": "embedding_W.csv", "projector_vectors": "vectors.tsv",
                               "projector_metadata": "metadata.tsv", "notebook": "embedding_explorer.ipynb"})
STRINGS_DIR = Path(__file__).resolve().parent.parent / "assets" / "strings"


def state(lab: Lab, text: str, lang: str) -> bytes:
    """The state as JSON (core.state.export_state): what "open a saved state" reads back."""
    return export_state(lab.recipe, text, lang, lab)


def script(lab: Lab, lang: str) -> str:
    """The PyTorch script that reproduces the lab's losses and W (core.codegen.script_for), comments in
    ``lang``. Raises `InputError` when the lab has steps but a sentence has no label."""
    return script_for(lab.recipe, lab.steps, lab.pad_edits, lang=lang)


def w_csv(lab: Lab) -> bytes:
    """W as CSV, every float32 exact (core.weights_csv)."""
    return weights_csv(lab.recipe.vocab, lab.weight.detach(), lab.work)  # the lab's work: stopped between chunks


def projector_vectors(lab: Lab) -> bytes:
    """The Embedding Projector's ``vectors.tsv``."""
    return vectors_tsv(lab.weight, lab.work)


def projector_metadata(lab: Lab) -> bytes:
    """The Embedding Projector's ``metadata.tsv``."""
    recipe = lab.recipe
    return metadata_tsv(recipe.vocab, lab.batch, recipe.labels, recipe.classes)


def notebook(code: str, lang: str) -> bytes:
    """The script ``code`` as a Jupyter notebook, its notes in ``lang`` (core.notebook.notebook_for)."""
    notes = notebook_strings(lang)
    return notebook_for(code, lambda key: notes.get(key, f"[{key}]"))


@lru_cache(maxsize=2)
def notebook_strings(lang: str) -> Mapping[str, str]:
    """The notebook's notes (``notebook.*`` keys of assets/strings) in ``lang``, English where missing."""
    found: dict[str, str] = {}
    for path in sorted(STRINGS_DIR.glob("*.json")):
        for key, entry in json.loads(path.read_text(encoding="utf-8")).items():
            if key.startswith("notebook."):
                found[key] = entry.get(lang) or entry.get("en") or f"[{key}]"
    return MappingProxyType(found)


def file_bytes(kind: str, lab: Lab, text: str, lang: str) -> bytes:
    """The bytes of the download ``kind`` (one of KINDS), as its button gives them."""
    if kind == "state":
        return state(lab, text, lang)
    if kind == "code":
        return script(lab, lang).encode("utf-8")
    if kind == "w_csv":
        return w_csv(lab)
    if kind == "projector_vectors":
        return projector_vectors(lab)
    if kind == "projector_metadata":
        return projector_metadata(lab)
    if kind == "notebook":
        return notebook(script(lab, lang), lang)
    raise ValueError(f"kind must be one of {KINDS}")


def explorer_files(ex, lang: str, kinds: tuple[str, ...] = KINDS) -> dict[str, bytes]:
    """Every download of a `core.explorer.Explorer` (the session's, or one a script built): kind → bytes."""
    return {kind: file_bytes(kind, ex.lab, ex.text, lang) for kind in kinds}
