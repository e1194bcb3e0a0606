"""The guard of server/hooks.py: what it reads of Streamlit's runtime is still there and still means
what it did (Streamlit 1.67). A Streamlit upgrade that moves any of it fails here, not in a class.

Each check plays the real object: a ScriptRequests asked to stop, a Runtime's methods, the session
manager's disconnect (whose stop request is how the budget learns that a tab closed), the
bootstrap's signal handler (which the stop handler is put in front of).
"""

from __future__ import annotations

import inspect
import signal
import threading

import streamlit
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests, ScriptRequestType
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext, get_script_run_ctx

from server import hooks as server_hooks
from server.budget import Budget
from server.admission import Admissions


def test_streamlit_is_the_version_the_hooks_were_read_from():
    assert streamlit.__version__.startswith("1.67."), streamlit.__version__


def test_a_stop_request_is_read_as_the_end_of_the_sessions_work():
    requests = ScriptRequests()
    assert not server_hooks.run_stopped(requests)
    requests.request_stop()
    assert requests._state is ScriptRequestType.STOP and server_hooks.run_stopped(requests)


def test_a_closed_tab_asks_its_script_to_stop():
    """SessionManager.disconnect_session (a websocket closed) and AppSession.shutdown request the stop
    the budget reads."""
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert "request_script_stop()" in inspect.getsource(WebsocketSessionManager.disconnect_session)
    assert "request_stop" in inspect.getsource(AppSession.request_script_stop)


def test_the_context_and_the_runtime_still_offer_what_is_read():
    fields = {f for f in getattr(ScriptRunContext, "__dataclass_fields__", {})}
    assert {"session_id", "script_requests"} <= fields
    assert "suppress_warning" in inspect.signature(get_script_run_ctx).parameters
    assert callable(Runtime.is_active_session) and callable(Runtime._get_async_objs)
    from streamlit.runtime.runtime import AsyncObjects

    assert "eventloop" in AsyncObjects._fields


def test_outside_a_server_nothing_is_bound_or_installed():
    b = Budget(lanes=1, admissions=Admissions())
    done = {}
    th = threading.Thread(target=lambda: done.update(who=server_hooks.session_of_this_thread(),
                                                     installed=server_hooks.install_stop_handler(b)))
    th.start()
    th.join(10)
    assert done == {"who": (None, None), "installed": False}
    assert server_hooks.session_connected("no-such-session")  # no runtime: unknown counts as connected


def test_streamlit_installs_the_handler_the_stop_handler_goes_in_front_of():
    from streamlit.web import bootstrap

    src = inspect.getsource(bootstrap._set_up_signal_handler)
    assert "signal.SIGTERM" in src and "server.stop" in src


def test_the_stop_handler_cancels_the_jobs_then_ends():
    b = Budget(lanes=1, admissions=Admissions())
    ended = threading.Event()
    handler = server_hooks._stop_first(b, end=lambda budget: ended.set())
    handler(signal.SIGTERM, None)
    assert ended.wait(10) and b.stopping
