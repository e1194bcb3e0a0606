"""Every use of Streamlit's private API, in one place (Streamlit is pinned, requirements.txt).

The app needs a few things Streamlit does not offer publicly: whether Back/Forward started this
run (the address), and, for server/upkeep.py, the sessions that can never run again and what to clear
when one is gone. Each is a small function here; nothing else in the app imports
``streamlit.runtime`` or reads a private attribute of Streamlit's objects.
tests/test_streamlit_private.py fails loudly when an upgrade moves any of them.

Where an internal is not as expected at run time, each reader degrades to "nothing known"
(False, None) rather than crash the page; the guard test is what notices.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import AbstractContextManager


def history_navigation() -> bool:
    """Whether the browser's Back or Forward started this script run (the address changed under the page)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:
        return False
    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


def fragment_interaction() -> bool:
    """Whether the interaction being handled reruns a fragment (the browser asked for one), not the
    page. AppTest's runs are whole-page runs, so there it is False."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:
        return False
    return bool(getattr(get_script_run_ctx(suppress_warning=True), "fragment_ids_this_run", None))


def cache_theme_messages() -> bool:
    """Once per process: every run (a fragment's too) sends a new_session message whose theme
    Streamlit builds by scanning all of its config options once per theme section (six). The
    options do not change while the server runs, and a re-read config is a new options dict: each
    section's theme is built once per options dict and merged in. The message is the same
    (tests/test_streamlit_private.py). What it saves a class: bench/RESULTS.md, "Streamlit's
    internals kept to the minimum". False when it was in place already or Streamlit moved."""
    try:
        from streamlit import config
        from streamlit.proto.NewSession_pb2 import CustomThemeConfig
        from streamlit.runtime import app_session
    except ImportError:
        return False
    build = getattr(app_session, "_populate_theme_msg", None)
    if build is None or getattr(build, "cached", False):
        return False
    built: dict[tuple[int, str], object] = {}

    def populate(msg, section: str = "theme") -> None:
        key = (id(getattr(config, "_config_options", None)), section)
        if key not in built:
            fresh = CustomThemeConfig()
            build(fresh, section)
            built[key] = fresh
        if built[key].ListFields():  # a section with nothing set leaves the message untouched, as Streamlit's does
            msg.MergeFrom(built[key])

    populate.cached, populate.original = True, build
    app_session._populate_theme_msg = populate
    return True


def serve_component_files(name: str, folder, html: str, css: str, js: str) -> bool:
    """Have Streamlit serve the v2 component ``name``'s ``js`` (a path in ``folder``; ``css`` too when
    it is a path, else inline CSS) under ``/_stcore/bidi-components/<name>/``, in place of the inline
    code it was declared with: the browser loads it once a page (a module's relative imports resolve
    there too), and no update of the component carries it. Streamlit does this only for components of an installed
    package that declares an asset directory; this app runs from its folder, so the folder is
    registered as the component's asset directory and the definition replaced. Such a package is
    not made for it: requirements.txt would have to install it, which a Hugging Face Space runs
    before the code is there and the hashed lock (deploy/) refuses for a folder, and an editable
    install serves one checkout's files to every checkout on that Python (bench/RESULTS.md,
    "Streamlit's internals kept to the minimum", says what was tried and what serving saves). Once per server
    (a later call changes nothing); False where there is no server (AppTest's runtime is a stand-in,
    a new one per test: the inline code stays)."""
    try:
        from pathlib import Path

        from streamlit.components.v2.component_manager import BidiComponentManager
        from streamlit.runtime import Runtime

        rt = Runtime.instance() if Runtime.exists() else None
        if type(rt) is not Runtime or not isinstance(rt.bidi_component_registry, BidiComponentManager):
            return False
        return serve_from_folder(rt.bidi_component_registry, name, Path(folder), html, css, js)
    except (ImportError, AttributeError, RuntimeError):
        return False


def serve_from_folder(manager, name: str, folder, html: str, css: str, js: str) -> bool:
    """`serve_component_files` on the server's component manager ``manager``: the definition the
    component declared inline at import is replaced in place (the registry's ``update_component``,
    the path Streamlit's own file watcher takes), so the log gets no "already registered.
    Overwriting" warning, which ``register`` gives for any second definition of a name."""
    current = manager.get(name)
    if current is not None and current.js_url == js:
        return False
    manager._manifest_handler._asset_roots[name] = folder.resolve()
    definition = manager.build_definition_with_validation(component_key=name, html=html, css=css, js=js)
    if current is None:
        manager.register(definition)
    else:
        manager._registry.update_component(definition)
    return True


def session_manager():
    """The server's session manager, or None (no server: AppTest, a bare script)."""
    try:
        from streamlit.runtime import Runtime

        return Runtime.instance()._session_mgr if Runtime.exists() else None
    except (ImportError, AttributeError, RuntimeError):
        return None


def storage_lock(mgr) -> AbstractContextManager:
    """The lock a reconnection holds while it moves a session from the store to the connected ones."""
    return mgr._storage_lock


def stored_sessions(mgr) -> list:
    """The sessions waiting in the store for their tab to come back (disconnected, TTL not passed)."""
    return [info.session for info in mgr._session_storage.list()]


def connected_sessions(mgr) -> list:
    return [info.session for info in mgr.list_active_sessions()]


def script_running(session) -> bool:
    """Whether the session's script is running now (it must finish before anything is released)."""
    return session._scriptrunner is not None


def clear_fragments(session) -> None:
    """Drop a gone session's fragments (their closures hold its explorer)."""
    session._fragment_storage.clear()


def clear_widget_callbacks(state) -> None:
    """Drop a session state's widget callbacks and their arguments (which hold the explorer)."""
    try:
        state._new_widget_state.widget_metadata.clear()
    except AttributeError:
        pass


def runtime():
    """The server's runtime (server/warm.py opens its throwaway sessions on it)."""
    from streamlit.runtime import Runtime

    return Runtime.instance()


class _Sink:
    """A session's client that keeps nothing: it only notes when the page's run has finished and
    which widget keys it drew."""

    client_context = None  # no browser: no headers, cookies or address

    def __init__(self) -> None:
        self.finished = threading.Event()
        self.status: int | None = None
        self.keys: set[str] = set()  # the user keys of the widgets drawn (Streamlit's ids end in "-<key>")

    def write_forward_msg(self, msg) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            kind = msg.delta.new_element.WhichOneof("type")
            wid = getattr(getattr(msg.delta.new_element, kind), "id", "") if kind else ""
            if isinstance(wid, str) and "-" in wid:
                self.keys.add(wid.rsplit("-", 1)[1])
        if msg.WhichOneof("type") == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.status = msg.script_finished
            self.finished.set()


def _on_loop(loop: asyncio.AbstractEventLoop, fn, timeout: float):
    """``fn()`` on the server's event loop (the runtime's session calls must run there); its result."""

    async def call():
        return fn()

    return asyncio.run_coroutine_threadsafe(call(), loop).result(timeout)


def throwaway_run(rt, loop: asyncio.AbstractEventLoop, address: str, timeout: float) -> tuple[bool, set[str]]:
    """One session with no browser opened on runtime ``rt`` at ``address`` (a query string), its first
    run waited for, then closed: whether the run finished successfully, and the widget keys it drew.
    A run that does not finish within ``timeout`` raises TimeoutError."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    sink = _Sink()
    session_id = _on_loop(loop, lambda: rt.connect_session(client=sink, user_info={}), timeout)
    try:
        msg = BackMsg()
        msg.rerun_script.query_string = address
        _on_loop(loop, lambda: rt.handle_backmsg(session_id, msg), timeout)
        if not sink.finished.wait(timeout):
            raise TimeoutError(f"the run at ?{address} did not finish within {timeout:.0f} s")
        return sink.status == ForwardMsg.FINISHED_SUCCESSFULLY, set(sink.keys)
    finally:
        _on_loop(loop, lambda: rt.close_session(session_id), 10.0)


# ---- the work budget (server/hooks.py) ------------------------------------------------------------
def this_run() -> tuple[str | None, object | None]:
    """(the session id, the ScriptRequests) of the script run this thread executes, or (None, None)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return (None, None) if ctx is None else (ctx.session_id, ctx.script_requests)


def run_stopped(requests) -> bool:
    """Whether Streamlit asked this script run to stop (its session ended or the server stops)."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    return requests is not None and requests._state is ScriptRequestType.STOP


def session_connected(session_id: str | None) -> bool:
    """Whether the session is still connected, from any thread; True where there is no server (AppTest)."""
    from streamlit.runtime import Runtime

    if session_id is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(session_id)


def server_loop():
    """The server's event loop (the main thread runs it), or None where there is no server."""
    from streamlit.runtime import Runtime

    return Runtime.instance()._get_async_objs().eventloop if Runtime.exists() else None


def stop_runtime() -> None:
    """Ask Streamlit's runtime to close its sessions and stop (thread-safe); nothing without one."""
    from streamlit.runtime import Runtime

    if Runtime.exists():
        Runtime.instance().stop()


def runtime_stopped() -> bool:
    from streamlit.runtime import Runtime

    return not Runtime.exists() or str(Runtime.instance().state).endswith("STOPPED")
