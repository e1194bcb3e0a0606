"""Every use of Streamlit's private API, in one place (Streamlit is pinned, requirements.txt).

The app needs a few things Streamlit does not offer publicly: whether Back/Forward started this
run (the address), and, for upkeep.py, the sessions that can never run again and what to clear
when one is gone. Each is a small function here; nothing else in the app imports
``streamlit.runtime`` or reads a private attribute of Streamlit's objects.
tests/test_streamlit_private.py fails loudly when an upgrade moves any of them.

Where an internal is not as expected at run time, each reader degrades to "nothing known"
(False, None) rather than crash the page; the guard test is what notices.
"""

from __future__ import annotations

from contextlib import AbstractContextManager


def history_navigation() -> bool:
    """Whether the browser's Back or Forward started this script run (the address changed under the page)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:
        return False
    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


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
