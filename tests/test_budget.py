"""The server's work budget (server/budget.py): admission, refusal, queueing and cancellation.

Waits are conditions on events (a job has started, a lane is free), bounded in time; no sleep
stands for a result. The labs are the test suite's own (conftest.make_lab); their weights are
compared with a fresh torch run where a cancelled Run must keep exactly the steps it took.
"""

from __future__ import annotations

import threading
import time

import pytest
import torch

from server import budget as B
from server.admission import Admissions
from core.problems import InputError
from support.labs import make_lab

WAIT_S = 10.0  # the bound of every wait below


def heavy() -> float:
    return B.LIGHT_SECONDS * 4


def in_thread(target) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = target()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th, out


def hold_lane(b: B.Budget) -> tuple[threading.Thread, threading.Event]:
    """A thread that takes a lane of ``b`` and holds it until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def hold():
        with b.job("run", heavy()):
            started.set()
            release.wait(WAIT_S)

    th, _ = in_thread(hold)
    assert started.wait(WAIT_S)
    return th, release


def test_a_light_job_takes_no_lane():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    with b.job("run", heavy()):
        with b.job("step", 0.001):  # nested and light: runs at once
            pass
        assert b.in_flight()["busy"] == 1
    assert b.in_flight()["busy"] == 0


def test_a_heavy_job_waits_for_a_lane_then_runs():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=WAIT_S)
    th1, release = hold_lane(b)
    def second():
        with b.job("export", heavy()):
            return "ran"

    th2, out = in_thread(second)
    th2.join(0.2)
    assert th2.is_alive(), "the second job must wait while the only lane is taken"
    release.set()
    th1.join(WAIT_S)
    th2.join(WAIT_S)
    assert out.get("value") == "ran"


def test_lanes_go_to_the_jobs_in_the_order_they_asked():
    """A job that has waited longest gets the next free lane, however often later ones ask."""
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=WAIT_S)
    th, release = hold_lane(b)
    order: list[str] = []

    def waiter(name):
        def run():
            with b.job(name, heavy()):
                order.append(name)
        return run

    first, _ = in_thread(waiter("export"))
    deadline = time.monotonic() + WAIT_S
    while not b._queue and time.monotonic() < deadline:  # the export is in line
        time.sleep(0.01)
    later = [in_thread(waiter(f"run{i}"))[0] for i in range(3)]
    while len(b._queue) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    for t in [th, first, *later]:
        t.join(WAIT_S)
    assert order[0] == "export" and sorted(order[1:]) == ["run0", "run1", "run2"]


def test_no_lane_within_the_wait_is_refused_with_server_busy():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    th, release = hold_lane(b)
    with pytest.raises(InputError) as info:
        with b.job("preview", heavy()):
            pass
    release.set()
    th.join(WAIT_S)
    p = info.value.problems[0]
    assert p.code == "server_busy" and p.params["lanes"] == 1 and p.params["kind"] == "preview"
    assert b.in_flight()["busy"] == 0


def test_memory_is_counted_by_the_same_admission_as_the_labs():
    adm = Admissions()
    b = B.Budget(lanes=2, admissions=adm, wait_seconds=0)
    need = 300 * 2**20
    free = 1000 * 2**20
    with b.job("export", heavy(), nbytes=need):
        assert adm.promised() >= need  # a lab admitted now sees the export's memory set aside
        with pytest.raises(InputError) as info:
            adm.reserve(need, available=free - need)  # what is left once the first export holds its bytes
    assert info.value.problems[0].code == "job_memory"
    assert adm.promised() == 0  # released when the job ends


def test_a_job_whose_session_ended_stops_at_its_next_checkpoint():
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    wanted = threading.Event()
    wanted.set()
    steps = []
    with pytest.raises(B.Cancelled) as info:
        with b.job("run", heavy(), owner="s1", alive=wanted.is_set):
            for i in range(1000):
                steps.append(i)
                if i == 3:
                    wanted.clear()  # the tab closed
                    time.sleep(B.POLL_SECONDS)  # the test is polled at most every POLL_SECONDS
                b.checkpoint()
    assert info.value.problems[0].code == "job_cancelled"
    assert steps == [0, 1, 2, 3]  # the step in flight when the tab closed finished; no further one started


def test_cancel_owner_and_stop():
    b = B.Budget(lanes=2, admissions=Admissions(), wait_seconds=0)
    started = threading.Barrier(3, timeout=WAIT_S)

    def work(owner):
        def run():
            with b.job("run", heavy(), owner=owner, alive=lambda: True):
                started.wait()
                deadline = time.monotonic() + WAIT_S
                while time.monotonic() < deadline:
                    b.checkpoint()
                    time.sleep(0.001)
                return "finished"
        return run

    (t1, o1), (t2, o2) = in_thread(work("a")), in_thread(work("b"))
    started.wait()
    assert b.cancel_owner("a") == 1
    t1.join(WAIT_S)
    assert o1["error"].problems[0].code == "job_cancelled" and t2.is_alive()
    assert b.stop(WAIT_S) is True  # every job ended at its checkpoint
    t2.join(WAIT_S)
    assert o2["error"].problems[0].code == "server_stopping"
    with pytest.raises(InputError) as info:  # and nothing new starts
        with b.job("run", heavy()):
            pass
    assert info.value.problems[0].code == "server_stopping"


def test_a_job_that_overruns_its_estimate_is_stopped(monkeypatch):
    monkeypatch.setattr(B, "OVERRUN_SLACK_S", 0.2)
    b = B.Budget(lanes=1, admissions=Admissions(), wait_seconds=0)
    estimate = 0.1
    limit = B.OVERRUN_FACTOR * estimate + B.OVERRUN_SLACK_S
    with pytest.raises(B.Cancelled) as info:
        with b.job("run", estimate) as job:
            deadline = time.monotonic() + 120  # wall bound: the machine may be shared
            while time.monotonic() < deadline and job.used_seconds() < limit + 1.0:
                sum(range(10_000))  # CPU of this thread: the overrun counts CPU time, not waiting
                b.checkpoint()
    assert info.value.problems[0].code == "job_overrun"
    assert limit <= job.used_seconds() < limit + 1.0


def test_a_cancelled_run_keeps_exactly_the_steps_it_took():
    """Through the real Lab: a Run cancelled after its 3rd step is at step 3, W bitwise torch's 3 steps."""
    lab = make_lab(embedding_dim=4, seed=5, work=B.BUDGET)  # its Run checks the budget's job between steps
    ref = make_lab(embedding_dim=4, seed=5)
    wanted = {"left": 3}

    def alive() -> bool:  # polled between steps: true for the first three checkpoints' polls
        wanted["left"] -= 1
        return wanted["left"] >= 0

    saved = B.POLL_SECONDS
    B.POLL_SECONDS = 0.0  # poll at every checkpoint
    try:
        with pytest.raises(B.Cancelled):
            with B.BUDGET.job("run", heavy(), owner="t", alive=alive):
                lab.run(50)
    finally:
        B.POLL_SECONDS = saved
    ref.run(lab.steps)
    assert 1 <= lab.steps < 50
    assert torch.equal(lab.weight, ref.weight)
    assert lab.steps in lab.snapshots
