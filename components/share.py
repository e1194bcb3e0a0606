"""Save and share: download the state, the PyTorch code and W; copy a share link; import a file.

Takes plain data, gives intent: the caller builds the bytes (`core.state.export_state`,
`core.codegen.script_for`, `core.state.weights_csv`, `core.state.share_url`) and validates
and applies what comes back (`core.state.parse_state`, then `restore`).

    >>> uploaded = render_share("ko", export_bytes, code, w_csv, url)
    >>> if uploaded is not None:
    ...     state = parse_state(uploaded)      # InputError → show_problems(...)

Widget keys: ``export_state``, ``export_code``, ``export_w_csv`` (download buttons),
``import_state`` (file uploader), ``import_apply`` (the "Load" button).
"""

from __future__ import annotations

import streamlit as st

from components.i18n import t
from core import limits
from session import Keys

_PREVIEW_MAX_CHARS = 40_000  # st.code of a longer script would slow the page for little gain


def render_share(lang: str, export_bytes: bytes, code: str, w_csv: bytes, share_url: str) -> bytes | None:
    """Draw the panel; return the uploaded file's bytes once, when "Load" is pressed, else None.

    An empty ``share_url`` means the state is too large for a link; the panel says so.
    """
    st.markdown(f"**{t(lang, 'share.title')}**")
    _downloads(lang, export_bytes, code, w_csv)
    st.markdown(f"**{t(lang, 'share.link_label')}**", help=t(lang, "share.link_help"))
    if share_url:
        st.code(share_url, language=None, wrap_lines=True)
    else:
        st.info(t(lang, "share.link_unavailable"))
    return _upload(lang)


def _downloads(lang: str, export_bytes: bytes, code: str, w_csv: bytes) -> None:
    cols = st.columns(3)
    cols[0].download_button(t(lang, "share.export_state"), export_bytes, file_name="embedding_state.json",
                            mime="application/json", key=Keys.EXPORT_STATE, help=t(lang, "share.export_state_help"),
                            on_click="ignore")
    cols[1].download_button(t(lang, "share.export_code"), code.encode("utf-8"), file_name="embedding_explorer.py",
                            mime="text/x-python", key=Keys.EXPORT_CODE, help=t(lang, "share.export_code_help"),
                            on_click="ignore")
    cols[2].download_button(t(lang, "share.export_w_csv"), w_csv, file_name="embedding_W.csv", mime="text/csv",
                            key=Keys.EXPORT_W_CSV, help=t(lang, "share.export_w_csv_help"), on_click="ignore")
    if len(code) <= _PREVIEW_MAX_CHARS:
        with st.expander(t(lang, "share.code_preview")):
            st.code(code, language="python")


def _upload(lang: str) -> bytes | None:
    """The uploader keeps its file across reruns; only the button click hands it over, once."""
    uploaded = st.file_uploader(t(lang, "share.import_label"), type=["json"], key=Keys.IMPORT_STATE,
                                help=t(lang, "share.import_help"),
                                max_upload_size=max(1, limits.MAX_IMPORT_BYTES // 1_000_000))
    clicked = st.button(t(lang, "share.import_apply"), key=Keys.IMPORT_APPLY, disabled=uploaded is None)
    if clicked and uploaded is not None:
        return uploaded.getvalue()
    return None
