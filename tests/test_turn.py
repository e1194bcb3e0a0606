"""The interpreter's turn (server/turn.py): one run at a time, first come first served, re-entrant,
given back by laned jobs, never a trap; and a click's fragment run takes it, a full run of the page not.

Waits are conditions on events and on the turn's own line, bounded in time; no sleep stands for a result.
"""

from __future__ import annotations

import logging
import threading

from streamlit.runtime.fragment import MemoryFragmentStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext, add_script_run_ctx
from streamlit.runtime.state import SafeSessionState, SessionState

from assets import presets
from core.explorer import Explorer
from sections import training_section
from server import budget as B
from server.admission import Admissions
from server.budget import BUDGET
from server.turn import TURN, Turn
from tests.apptest_helpers import APP

WAIT_S = 10.0


def until(condition, what: str) -> None:
    done = threading.Event()
    for _ in range(int(WAIT_S / 0.005)):
        if condition():
            return
        done.wait(0.005)
    raise AssertionError(f"not within {WAIT_S} s: {what}")


def holding(hold) -> tuple[threading.Thread, threading.Event]:
    """A thread inside ``hold()`` (a context manager) until the returned event is set."""
    inside, release = threading.Event(), threading.Event()

    def run() -> None:
        with hold():
            inside.set()
            release.wait(WAIT_S)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    assert inside.wait(WAIT_S)
    return th, release


def test_one_run_at_a_time_in_the_order_they_came():
    turn = Turn(holders=1)
    order, inside, most = [], [0], [0]
    lock, go = threading.Lock(), threading.Event()

    def run(i: int) -> None:
        with turn.held():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                order.append(i)
            go.wait(WAIT_S) if i == 0 else None  # the first holds the turn until the line has formed
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=run, args=(0,), daemon=True)]
    threads[0].start()
    until(lambda: order == [0], "the first run holds the turn")
    for i in range(1, 6):  # each joins the line after the one before it
        threads.append(threading.Thread(target=run, args=(i,), daemon=True))
        threads[-1].start()
        until(lambda i=i: turn.waiting() == i, f"run {i} waits in line")
    go.set()
    for th in threads:
        th.join(WAIT_S)
    assert order == [0, 1, 2, 3, 4, 5]
    assert most[0] == 1
    assert turn.waiting() == 0 and turn.given_up == 0


def test_holders_bounds_how_many_run_at_once():
    turn = Turn(holders=2)
    a, b = threading.Event(), threading.Event()
    release = threading.Event()

    def hold(flag: threading.Event) -> None:
        with turn.held():
            flag.set()
            release.wait(WAIT_S)

    for flag in (a, b):
        threading.Thread(target=hold, args=(flag,), daemon=True).start()
    assert a.wait(WAIT_S) and b.wait(WAIT_S)  # two at once
    third = threading.Event()
    threading.Thread(target=hold, args=(third,), daemon=True).start()
    until(lambda: turn.waiting() == 1, "the third waits")
    assert not third.is_set()
    release.set()
    assert third.wait(WAIT_S)


def test_nested_holds_take_the_turn_once_and_an_error_gives_it_back():
    turn = Turn(holders=1)
    with turn.held():
        with turn.held():  # a fragment drawn inside the page's run
            assert turn.mine()
        assert turn.mine()
    assert not turn.mine()
    try:
        with turn.held():
            raise KeyError("a rerun or a stop ends the run")
    except KeyError:
        pass
    taken = threading.Event()

    def take() -> None:
        with turn.held():
            taken.set()

    threading.Thread(target=take, daemon=True).start()
    assert taken.wait(WAIT_S), "the turn was not given back after the error"


def test_outside_gives_the_turn_to_the_next_in_line_and_takes_it_back():
    turn = Turn(holders=1)
    other_in, outside_now, back = threading.Event(), threading.Event(), threading.Event()

    def other() -> None:
        with turn.held():
            other_in.set()
            back.wait(WAIT_S)

    with turn.held():
        th = threading.Thread(target=other, daemon=True)
        th.start()
        until(lambda: turn.waiting() == 1, "the other run waits")
        with turn.outside():
            assert not turn.mine()
            assert other_in.wait(WAIT_S)  # it runs while this thread is outside
            outside_now.set()
            back.set()
        assert turn.mine()  # taken back once the other gave it up
        with turn.held():
            assert turn.mine()
    th.join(WAIT_S)
    with turn.outside():  # outside without holding: nothing to give back
        assert not turn.mine()


def test_a_run_that_waits_too_long_goes_on_without_its_turn():
    turn = Turn(holders=1, wait_s=0.05)
    th, release = holding(turn.held)
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())
    log = logging.getLogger("embedding_explorer.turn")
    log.addHandler(handler)
    try:
        with turn.held():
            assert not turn.mine()  # went on without one
    finally:
        log.removeHandler(handler)
    assert turn.given_up == 1 and turn.waiting() == 0
    assert any("goes on without it" in line for line in logged)  # the server's log says so
    release.set()
    th.join(WAIT_S)
    with turn.held():  # the turn came back whole: taken at once
        assert turn.mine()


def test_a_turn_taken_again_after_an_outside_block_is_given_back_once():
    """A run that went on without its turn, then stepped outside and came back with one, gives that
    one back; a run that lost it on the way back gives nothing: the turn stays one."""
    turn = Turn(holders=1, wait_s=0.05)
    th, release = holding(turn.held)
    with turn.held():
        assert not turn.mine()  # went on without one
        release.set()
        th.join(WAIT_S)
        with turn.outside():
            pass
        assert turn.mine()  # came back with the turn the other run gave up
    turn.wait_s = WAIT_S
    with turn.held():
        assert turn.mine()
        other = threading.Event()

        def second() -> None:
            with turn.held():
                other.set()

        threading.Thread(target=second, daemon=True).start()
        until(lambda: turn.waiting() == 1, "a second run waits: still one turn")
        assert not other.is_set()
    assert other.wait(WAIT_S)


def test_a_laned_job_runs_outside_the_turn_and_a_light_one_inside():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    with TURN.held():
        with b.job("step", B.LIGHT_SECONDS / 10):
            assert TURN.mine()
        with b.job("run", B.LIGHT_SECONDS * 4):
            assert not TURN.mine()  # the class's Steps go on while it runs
            with b.job("replay", B.LIGHT_SECONDS * 4):  # nested: shares the lane, still outside
                assert not TURN.mine()
        assert TURN.mine()


def test_a_laned_job_refused_gives_the_turn_back_to_its_run():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    th, release = holding(lambda: b.job("run", B.LIGHT_SECONDS * 4))
    with TURN.held():
        try:
            with b.job("run", B.LIGHT_SECONDS * 4):
                raise AssertionError("a second lane was given")
        except B.InputError as e:
            assert e.problems[0].code == "server_busy"
        assert TURN.mine()
    release.set()
    th.join(WAIT_S)


def test_runs_when_takes_the_turn_only_when_its_condition_holds():
    turn, asked = Turn(holders=1), {"now": False}

    @turn.runs_when(lambda: asked["now"])
    def run() -> bool:
        return turn.mine()

    assert run() is False
    asked["now"] = True
    assert run() is True
    assert not turn.mine()


def run_of(fragment: bool) -> ScriptRunContext:
    """A script run's context as Streamlit's script runner makes one: a fragment's run (a click in the
    training view, as the browser sends it) names the fragments it runs; the page's run names none."""
    return ScriptRunContext(session_id="learner", _enqueue=lambda msg: None, query_string="",
                            session_state=SafeSessionState(SessionState(), lambda: None),
                            uploaded_file_mgr=MemoryUploadedFileManager("/upload"), main_script_path=APP, user_info={},
                            fragment_storage=MemoryFragmentStorage(), pages_manager=PagesManager(APP),
                            fragment_ids_this_run=[training_section.STAGE_PART] if fragment else None)


def script_thread(fragment: bool, work) -> threading.Thread:
    """A thread running ``work`` as a script run does: Streamlit's run context attached to it."""
    th = threading.Thread(target=work, daemon=True)
    add_script_run_ctx(th, run_of(fragment))
    th.start()
    return th


def test_a_clicks_fragment_run_steps_in_its_turn_and_a_full_run_of_the_page_takes_none():
    """Three learners' runs in three threads, through the training view's own gate (``in_turn``, which
    reads Streamlit's run context): while one click's run holds the turn, a second click's run waits in
    line, and a full run of the page (opening it, a knob, another view) goes on and steps without the
    turn; once the first is done, the second steps in its turn."""
    first, second, page_run = (Explorer.from_preset(presets.load(presets.DEFAULT), BUDGET) for _ in range(3))
    inside, release, seen = threading.Event(), threading.Event(), {}

    def step(name: str, ex: Explorer, hold: bool = False):
        @training_section.in_turn
        def run() -> None:
            if hold:
                inside.set()
                release.wait(WAIT_S)
            seen[name] = (TURN.mine(), ex.step())
        return run

    threads = [script_thread(True, step("first", first, hold=True))]
    assert inside.wait(WAIT_S), "the first click's run did not start"
    threads.append(script_thread(True, step("second", second)))
    until(lambda: TURN.waiting() == 1, "the second click's run waits in line")
    threads.append(script_thread(False, step("page", page_run)))
    threads[-1].join(WAIT_S)
    assert seen == {"page": (False, [])}, seen  # the page's run stepped without the turn, the second still waits
    assert TURN.waiting() == 1
    release.set()
    for th in threads:
        th.join(WAIT_S)
    assert seen == {"first": (True, []), "second": (True, []), "page": (False, [])}, seen
    assert [ex.lab.steps for ex in (first, second, page_run)] == [1, 1, 1]
    assert not TURN.mine() and TURN.waiting() == 0


def test_a_heavy_job_hands_the_interpreter_over_quickly_until_the_last_one_ends():
    """While a job holds a lane of the budget, the interpreter changes threads within
    SWITCH_INTERVAL_S (the class's Steps get it back quickly); Python's own interval after."""
    import sys

    from server.budget import Budget
    from server.turn import SWITCH_INTERVAL_S

    own = sys.getswitchinterval()
    budget = Budget(lanes=2)
    assert own > SWITCH_INTERVAL_S
    held, let_go = threading.Event(), threading.Event()

    def other_job() -> None:
        with budget.job("run", seconds=5.0, owner="b", alive=lambda: True):
            held.set()
            let_go.wait(30)

    with budget.job("step", seconds=0.01):  # a light job takes no lane
        assert sys.getswitchinterval() == own
    with budget.job("load", seconds=5.0, owner="a", alive=lambda: True):
        assert sys.getswitchinterval() == SWITCH_INTERVAL_S
        worker = threading.Thread(target=other_job)
        worker.start()
        assert held.wait(30)
    assert sys.getswitchinterval() == SWITCH_INTERVAL_S  # the other lane is still held
    let_go.set()
    worker.join(30)
    assert sys.getswitchinterval() == own
