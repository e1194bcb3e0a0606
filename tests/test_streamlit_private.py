"""The guard of server/streamlit_private.py: each private name the adapter reads is still where it reads it.

The adapter degrades quietly at run time (a page must not crash over it), so an upgrade that moved
an internal would silently stop the app from following Back/Forward or from releasing a closed
session's memory. These tests fail loudly instead, against the real classes, and one checks that
nothing outside the adapter reaches into Streamlit's internals.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import threading
from pathlib import Path

from server import streamlit_private as private
from server import upkeep

ROOT = Path(__file__).resolve().parent.parent


def test_the_script_run_context_still_says_whether_back_or_forward_started_the_run():
    from streamlit.runtime.scriptrunner import ScriptRunContext, get_script_run_ctx

    assert "is_history_navigation" in {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert get_script_run_ctx() is None and private.history_navigation() is False  # no script running here


def test_the_script_run_context_still_names_the_fragments_a_run_reruns():
    """The training bar's callbacks rerun the stage's fragment alone only when the browser asked
    for a fragment run: the context must still carry that list (empty under AppTest)."""
    from streamlit.runtime.scriptrunner import ScriptRunContext
    from streamlit.testing.v1 import AppTest

    assert "fragment_ids_this_run" in {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert private.fragment_interaction() is False  # no script running here

    def app():
        import streamlit as st

        from server import streamlit_private

        st.button("go", key="go", on_click=lambda: st.session_state.update(seen=streamlit_private.fragment_interaction()))

    at = AppTest.from_function(app).run()
    at.button(key="go").click().run()
    assert at.session_state["seen"] is False  # AppTest's click reruns the page


def test_the_theme_built_once_is_the_theme_streamlit_builds_at_every_run(monkeypatch):
    """cache_theme_messages: the new_session message's theme, every section of this app's config,
    is the same bytes as Streamlit's own builder makes; and it carries the app's colours."""
    from streamlit import config
    from streamlit.proto.NewSession_pb2 import CustomThemeConfig
    from streamlit.runtime import app_session

    streamlits = getattr(app_session._populate_theme_msg, "original", app_session._populate_theme_msg)
    monkeypatch.setattr(app_session, "_populate_theme_msg", streamlits)
    config.get_config_options(force_reparse=True)  # this repository's .streamlit/config.toml

    def theme() -> bytes:
        m = CustomThemeConfig()
        targets = {"theme": m, "theme.light": m.light, "theme.dark": m.dark, "theme.sidebar": m.sidebar,
                   "theme.light.sidebar": m.light.sidebar, "theme.dark.sidebar": m.dark.sidebar}
        assert set(targets) == {"theme"} | {f"theme.{c.value}" for c in config.CustomThemeCategories}
        for section, target in targets.items():
            app_session._populate_theme_msg(target, section)
        return m.SerializeToString()

    before = theme()
    assert private.cache_theme_messages() is True and private.cache_theme_messages() is False  # once
    assert app_session._populate_theme_msg is not streamlits
    assert theme() == theme() == before
    got = CustomThemeConfig.FromString(before)
    assert got.light.primary_color == "#1558b0" and got.dark.background_color == "#131314"


def test_a_components_folder_is_still_where_streamlit_serves_its_files_from():
    """serve_component_files: the asset directory a manifest would declare is still read from the
    manager's manifest handler, and the stage's and the keeper's JS resolve under it to the
    URLs the browser asks for (/_stcore/bidi-components/<name>/<url>); their CSS stays inline."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    import components.keeper as keeper
    import components.stage as stage

    assert private.serve_component_files("x", ROOT, "", "a {}", "a.js") is False  # no server here: inline
    for c in (stage, keeper):
        folder = Path(c.__file__).parent.resolve()
        mgr = BidiComponentManager()
        mgr._manifest_handler._asset_roots[c.NAME] = folder
        assert mgr.get_component_path(c.NAME) == str(folder)
        d = mgr.build_definition_with_validation(component_key=c.NAME, html=c.HTML, css=c.CSS, js=c.JS_FILE)
        assert (d.js_url, d.js_content, d.css_url, d.css_content) == (c.JS_FILE, None, None, c.CSS)  # the CSS inline
        assert (folder / c.JS_FILE).is_file()


def test_serving_a_components_files_replaces_its_inline_definition_without_a_warning():
    """The stage and the keeper are declared inline at import, then served from their folder: the
    replacement takes the file-served definition and logs no "already registered. Overwriting"
    (which a second ``register`` of the same name does log, as the control below shows)."""
    import logging

    from streamlit.components.v2.component_manager import BidiComponentManager

    import components.keeper as keeper
    import components.stage as stage

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    log = logging.getLogger("streamlit.components.v2.component_registry")
    log.addHandler(handler)
    try:
        for c in (stage, keeper):
            mgr = BidiComponentManager()
            mgr.register(mgr.build_definition_with_validation(component_key=c.NAME, html=c.HTML, css=c.CSS,
                                                              js="export default () => {}"))  # as at import
            folder = Path(c.__file__).parent
            assert private.serve_from_folder(mgr, c.NAME, folder, c.HTML, c.CSS, c.JS_FILE) is True
            assert mgr.get(c.NAME).js_url == c.JS_FILE and mgr.get(c.NAME).js_content is None
            assert private.serve_from_folder(mgr, c.NAME, folder, c.HTML, c.CSS, c.JS_FILE) is False  # once
        assert [r.getMessage() for r in records if r.levelno >= logging.WARNING] == []
        mgr.register(mgr.build_definition_with_validation(component_key=keeper.NAME, html="", css=None, js="x()"))
        assert any("already registered" in r.getMessage() for r in records)  # what register itself logs
    finally:
        log.removeHandler(handler)


def test_streamlit_still_has_what_upkeep_reads():
    """Through a real manager and store: the session manager, its lock and store, a session's
    script runner and fragments, a state's widget callbacks."""
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.session_manager import SessionInfo
    from streamlit.runtime.state.session_state import SessionState
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert "self._session_mgr" in inspect.getsource(Runtime.__init__)
    init = inspect.getsource(AppSession.__init__)
    assert "self._scriptrunner" in init and "self._fragment_storage" in init
    assert isinstance(AppSession.session_state, property)
    state = SessionState()
    state._new_widget_state.widget_metadata["w"] = object()
    private.clear_widget_callbacks(state)
    assert state._new_widget_state.widget_metadata == {}
    storage = MemorySessionStorage(ttl_seconds=60)
    mgr = WebsocketSessionManager(storage, uploaded_file_manager=None, script_cache=None,
                                  message_enqueued_callback=None)
    assert isinstance(private.storage_lock(mgr), type(threading.Lock()))
    waiting = _Session("waiting")
    storage.save(SessionInfo(client=None, session=waiting))
    assert private.stored_sessions(mgr) == [waiting] and private.connected_sessions(mgr) == []
    watched = {}
    assert upkeep._gone_sessions(mgr, watched) == [] and set(watched) == {"waiting"}
    storage.delete("waiting")  # as the store drops an expired session
    assert upkeep._gone_sessions(mgr, watched) == [waiting]
    assert private.session_manager() is None  # no server runs in this process


class _Session:
    def __init__(self, sid: str):
        self.id, self._scriptrunner = sid, None


def test_streamlit_still_has_what_the_warm_up_calls():
    """server/warm.py's throwaway sessions: the runtime's session calls, the rerun message's address and
    the finished run's status, as streamlit_private.throwaway_run uses them."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.runtime import Runtime

    for name, params in (("connect_session", {"client", "user_info"}), ("handle_backmsg", {"session_id", "msg"}),
                         ("close_session", {"session_id"})):
        assert params <= set(inspect.signature(getattr(Runtime, name)).parameters), name
    msg = BackMsg()
    msg.rerun_script.query_string = "section=train"
    assert msg.WhichOneof("type") == "rerun_script"
    assert ForwardMsg.FINISHED_SUCCESSFULLY != ForwardMsg.FINISHED_EARLY_FOR_RERUN
    done = ForwardMsg()
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    sink = private._Sink()
    sink.write_forward_msg(done)
    assert sink.finished.is_set() and sink.status == ForwardMsg.FINISHED_SUCCESSFULLY


def test_nothing_else_in_the_app_reads_streamlit_internals():
    """No app module but the adapter imports streamlit.runtime or reads a private attribute of an object
    it did not define (``x._name`` where x is not ``self``/``cls``)."""
    roots = [p for p in [*ROOT.glob("*.py"), *(ROOT / "server").glob("*.py")] if p.name != "streamlit_private.py"]
    assert {"app.py", "page.py", "upkeep.py", "warm.py", "hooks.py"} <= {p.name for p in roots}
    for path in roots + [ROOT / n for n in ("session", "components", "sections", "views", "core")]:
        for file in (path.rglob("*.py") if path.is_dir() else [path]):
            tree = ast.parse(file.read_text(encoding="utf-8"))
            where = file.relative_to(ROOT)
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                    assert not any(n.startswith("streamlit.") and n != "streamlit.components.v2" for n in names), \
                        f"{where}:{node.lineno} imports {names}"
                if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                    owner = node.value
                    mine = isinstance(owner, ast.Name) and owner.id in ("self", "cls")
                    assert mine or not _streamlit_object(owner), f"{where}:{node.lineno} reads {ast.unparse(node)}"


def _streamlit_object(node: ast.AST) -> bool:
    """Whether an expression reaches Streamlit's objects: ``st.…``, a session, a manager or a state."""
    text = ast.unparse(node).lower()
    return text.startswith(("st.", "streamlit")) or any(w in text for w in ("session", "mgr", "state", "runtime", "ctx"))
