"""Save and share: download the state, the PyTorch code (script or notebook), W (CSV, or the
Embedding Projector's two TSV files); copy a share link; import a file.

Takes plain data, gives intent: the caller builds the bytes (`core.state.export_state`,
`core.codegen.script_for`, `core.notebook.notebook_for`, `core.weights_csv.weights_csv`,
`core.projector_tsv`, `core.share_link.share_url`) and validates and applies what comes back
(`core.state.parse_state`, then `restore`). Every file but the script may be given as a callable
returning its bytes: Streamlit calls it only when the learner clicks its button.

    >>> files = Downloads(state=export_bytes, code=code, w_csv=w_csv, projector_vectors=vectors,
    ...                   projector_metadata=metadata, notebook=notebook)
    >>> uploaded = render_share("ko", files, url, keys)    # keys: a PanelKeys of the caller's keys
    >>> if uploaded is not None:
    ...     state = parse_state(uploaded)      # InputError → show_problems(...)

Widget keys are the caller's (`PanelKeys`; the app's are session.Keys: ``export_state``,
``export_code``, ``export_w_csv``, ``export_projector_vectors``, ``export_projector_metadata``,
``export_notebook`` for the download buttons, ``import_state`` for the file uploader, ``import_apply``
for the "Load" button).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

import streamlit as st

from components.i18n import t
from core import limits

_PREVIEW_MAX_CHARS = 40_000  # st.code of a longer script would slow the page for little gain

FileData = Union[bytes, Callable[[], bytes]]  # bytes, or a callable run only on click


@dataclass(frozen=True)
class Downloads:
    """What the panel offers for download; `code` is text because the panel also previews it."""

    state: FileData
    code: str
    w_csv: FileData
    projector_vectors: FileData
    projector_metadata: FileData
    notebook: FileData
    refused: tuple[tuple[str, str], ...] = ()  # (field, message): files too large to offer (core/exports.py)


@dataclass(frozen=True)
class PanelKeys:
    """The panel's widget keys: one per download button (named as `Downloads`' fields), the code
    preview's expander, the uploader and its "Load" button, and the prefix of a refused file's box
    (+ its field)."""

    state: str
    code: str
    w_csv: str
    projector_vectors: str
    projector_metadata: str
    notebook: str
    preview: str
    upload: str
    apply: str
    problems_prefix: str


def render_share(lang: str, files: Downloads, share_url: str, keys: PanelKeys) -> bytes | None:
    """Draw the panel; return the uploaded file's bytes once, when "Load" is pressed, else None.

    An empty ``share_url`` means the state is too large for a link; the panel says so.
    """
    st.header(t(lang, "share.title"))  # h2, after the sidebar's h1
    _downloads(lang, files, keys)
    st.header(t(lang, "share.link_label"), help=t(lang, "share.link_help"))
    if share_url:
        st.code(share_url, language=None, wrap_lines=True)
    else:
        st.info(t(lang, "share.link_unavailable"))
    return _upload(lang, keys)


def _downloads(lang: str, files: Downloads, keys: PanelKeys) -> None:
    buttons = (  # (key, label and help key, data, file name, MIME type, field), three to a row
        (keys.state, "share.export_state", files.state, "embedding_state.json", "application/json", "state"),
        (keys.code, "share.export_code", files.code.encode("utf-8"), "embedding_explorer.py", "text/x-python",
         "code"),
        (keys.w_csv, "share.export_w_csv", files.w_csv, "embedding_W.csv", "text/csv", "w_csv"),
        (keys.projector_vectors, "share.export_projector_vectors", files.projector_vectors, "vectors.tsv",
         "text/tab-separated-values", "projector_vectors"),
        (keys.projector_metadata, "share.export_projector_metadata", files.projector_metadata,
         "metadata.tsv", "text/tab-separated-values", "projector_metadata"),
        (keys.notebook, "share.export_notebook", files.notebook, "embedding_explorer.ipynb",
         "application/x-ipynb+json", "notebook"),
    )
    refused = dict(files.refused)
    for row in (buttons[:3], buttons[3:]):
        for col, (key, text, data, name, mime, field) in zip(st.columns(3), row):
            col.download_button(t(lang, text), b"" if field in refused else data, file_name=name, mime=mime,
                                key=key, help=t(lang, text + "_help"), on_click="ignore", disabled=field in refused)
    for field, message in files.refused:  # why a button is off: the file's size and the limit
        st.container(key=keys.problems_prefix + field).warning(message, icon=":material/block:")
    if len(files.code) <= _PREVIEW_MAX_CHARS:  # built only while open: highlighting it is the browser's longest task here
        preview = st.expander(t(lang, "share.code_preview"), key=keys.preview, on_change="rerun")
        if preview.open:
            with preview:
                st.code(files.code, language="python")


def _upload(lang: str, keys: PanelKeys) -> bytes | None:
    """The uploader keeps its file across reruns; only the button click hands it over, once."""
    uploaded = st.file_uploader(t(lang, "share.import_label"), type=["json"], key=keys.upload,
                                help=t(lang, "share.import_help"),
                                max_upload_size=max(1, limits.MAX_IMPORT_BYTES // 1_000_000))
    clicked = st.button(t(lang, "share.import_apply"), key=keys.apply, disabled=uploaded is None, help=t(lang, "help.import_apply"))
    if clicked and uploaded is not None:
        return uploaded.getvalue()
    return None
