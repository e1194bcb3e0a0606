"""Section 4: export the whole state, import it back, a share link, plain PyTorch code (script or
notebook), W as CSV and in the Embedding Projector's format."""

from __future__ import annotations

from functools import partial

import streamlit as st

import session
from components import inputs, share
from components.busy import busy
from components.i18n import problem_text, t
from core import downloads, exports
from core.problems import InputError
from core.share_link import share_url, to_query_params
from core.state import export_state, parse_state, restore
from core.explorer import Explorer
from server import download_jobs, hooks as server_hooks
from server.budget import BUDGET
from session import Keys

KEYS = share.PanelKeys(state=Keys.EXPORT_STATE, code=Keys.EXPORT_CODE, w_csv=Keys.EXPORT_W_CSV,
                       projector_vectors=Keys.EXPORT_PROJECTOR_VECTORS,
                       projector_metadata=Keys.EXPORT_PROJECTOR_METADATA, notebook=Keys.EXPORT_NOTEBOOK,
                       preview=Keys.CODE_PREVIEW, upload=Keys.IMPORT_STATE, apply=Keys.IMPORT_APPLY,
                       problems_prefix=Keys.PROBLEMS_PREFIX)
LINK_MAX_STATE_BYTES = 64_000  # a state bigger than this makes no usable link; export a file instead


def render(lang: str, ex: Explorer) -> None:
    lab = ex.lab
    recipe = lab.recipe
    text = ex.text
    try:
        code = downloads.script(lab, lang)
    except InputError as e:
        code = "# " + t(lang, "err.labels_missing", **e.problems[0].params) if e.problems else ""
    v, e = lab.weight.shape
    size = (v, e, session.memo("token_bytes", (lab.uid,), lambda: exports.token_bytes(recipe.vocab.tokens)))
    owner = server_hooks.session_of_this_thread()[0]
    job = partial(download_jobs.deferred, v=v, e=e, token_bytes=size[2], owner=owner,
                  alive=server_hooks.alive_from_anywhere(owner))  # each file a job of the server's budget
    # Every file but the previewed script is built only when its button is clicked, by core.downloads:
    # the same functions a script calls (docs/scripting.md, "Reading a download's bytes").
    files = share.Downloads(
        state=job("state", lambda: downloads.state(lab, text, lang)),
        code=code,
        w_csv=job("w_csv", lambda: downloads.w_csv(lab)),
        projector_vectors=job("projector_vectors", lambda: downloads.projector_vectors(lab)),
        projector_metadata=job("projector_metadata", lambda: downloads.projector_metadata(lab)),
        notebook=job("notebook", lambda: downloads.notebook(code, lang)),
        refused=tuple((kind, problem_text(lang, p)) for kind in ("w_csv", "projector_vectors")
                      if (p := exports.export_problem(kind, *size)) is not None),
    )
    uploaded = share.render_share(lang, files, link_for(recipe, text, lang, lab), KEYS)
    slot = st.empty()  # the import's status while it is checked and replayed
    if uploaded is not None:
        ex.problems.pop("import", None)
        with busy(slot, t(lang, "urlstate.importing")):
            queued = apply_import(ex, uploaded)
        if queued:
            st.rerun()  # the state is installed on a fresh run, before any widget is drawn
    inputs.show_problems(lang, "err.import_title", ex.problems.get("import", []), key_prefix=Keys.PROBLEMS_PREFIX,
                         kept="err.kept_file")


def link_for(recipe, text: str, lang: str, lab) -> str:
    """The share link for the current state without weights, or '' when it is too large for a URL."""
    try:
        small = export_state(recipe, text, lang, lab, include_weights=False)
        if len(small) > LINK_MAX_STATE_BYTES:
            return ""
        return share_url(st.context.url or "http://localhost:8501/", to_query_params(parse_state(small)))
    except InputError:
        return ""


def apply_import(ex: Explorer, data: bytes) -> bool:
    """Validate an uploaded state and queue it for the next run (True), or keep its problems to show
    and change nothing (False)."""
    try:
        state = parse_state(data)
        restored = restore(state, BUDGET)
    except InputError as e:
        ex.problems["import"] = e.problems
        return False
    if restored.weights_verified is False or restored.model_verified is False:
        notice = "share.imported_unverified"
    elif restored.weights_verified is None:
        notice = "share.imported_replayed"
    else:
        notice = "share.imported"
    session.queue_state(state, restored, notice)
    return True
