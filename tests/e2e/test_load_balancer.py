"""The load-balancer recipe for real: deploy/haproxy.cfg, the file deploy/compose.yaml mounts, run by
Debian's haproxy on loopback in front of two `streamlit run app.py` replicas on free ports.

The addresses reach the file through the environment variables it reads ("${APP1}", ...), as
compose sets them. Several learners (browser contexts) train; then:

1. they are spread over both replicas and stay there: each context's cookie names a replica,
   and a watcher on each page records every change of its connection state, so killing one
   replica shows which pages it served (those, and only those, lose their connection);
2. one replica is killed: its learners' pages reconnect through the balancer to the survivor,
   whose cookie they then carry, and the page works (a Step steps);
3. (the keeper's part of failover, issue 23) the learner sees a message and an offer of the kept
   work, and restoring it gives W bitwise as torch computes it;
4. the replica comes back: no live learner moves (cookies still name the survivor, sessions keep
   their steps); a new learner is sent to the returned replica.

The tests of this module run in order and share one cluster. Every wait is a condition with a bound.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import time
import urllib.request

import numpy as np
import pytest

from support.server import NO_WATCHER, Server, free_port, start_servers, stop_process

from .helpers import (ARTIFACTS, ROOT, VIEWPORT, alerts, button, lookup_tables, open_app, section,
                      label, shown_step, unavailable_reason, wait_step)

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
if HAPROXY is None:
    pytest.skip("the load-balancer test needs Debian's haproxy (scripts/test.sh installs it when run as root)",
                allow_module_level=True)

CFG = ROOT / "deploy" / "haproxy.cfg"
LANG = "ko"
LEARNERS = 4
STEPS = 2  # each learner trains this many steps before the kill
START_S = 180  # a replica's first answer; a reconnection; HAProxy marking a server up or down
COOKIE = "SERVERID"
OFFER = "[class*='st-key-keeper_restore_'] button"
# The steps of every entry the keeper holds in this browser (components/keeper/keeper.js: one per page session).
KEPT_STEPS_JS = """() => { const out = [];
  for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);
    if (k.startsWith('nn-embedding-explorer.work.')) out.push(JSON.parse(localStorage.getItem(k)).steps); }
  return out; }"""

# Each change of the page's connection state, recorded from now on (Streamlit writes it on stApp).
WATCH_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__lbStates = [];
  new MutationObserver(() => window.__lbStates.push(app.getAttribute('data-test-connection-state')))
    .observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']});
}"""
RECONNECTED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return window.__lbStates.some(s => s !== 'CONNECTED') && app.getAttribute('data-test-connection-state') === 'CONNECTED';
}"""


class Cluster:
    """Two replicas and HAProxy, each on a free loopback port, with their logs in artifacts/."""

    def __init__(self) -> None:
        self.ports = {"app1": free_port(), "app2": free_port()}
        self.lb_port, self.stats_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}/"
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, object] = {}
        self.starts = {"app1": 0, "app2": 0}
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def log_path(self, name: str):
        return ARTIFACTS / f"e2e-lb-{name}-{self.starts.get(name, 0)}.log"

    def start_replica(self, *names: str) -> None:
        """Start the replicas ``names`` (side by side when several) and wait until each is healthy."""
        for name in names:
            self.starts[name] += 1
        try:
            started = start_servers(*(dict(script="app.py", timeout=START_S, extra=NO_WATCHER, port=self.ports[name],
                                           log=self.log_path(name)) for name in names))
        except RuntimeError as e:
            raise AssertionError(f"replica {' or '.join(names)} did not start: {e}") from None
        for name, server in zip(names, started):
            self.procs[name], self.logs[name] = server.proc, server.log

    def start_balancer(self) -> None:
        env = os.environ | {"LB_BIND": f"127.0.0.1:{self.lb_port}", "STATS_BIND": f"127.0.0.1:{self.stats_port}",
                            "APP1": f"127.0.0.1:{self.ports['app1']}", "APP2": f"127.0.0.1:{self.ports['app2']}"}
        check = subprocess.run([HAPROXY, "-c", "-f", str(CFG)], env=env, capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        log = self.logs["lb"] = open(ARTIFACTS / "e2e-lb-haproxy.log", "wb")
        self.procs["lb"] = subprocess.Popen([HAPROXY, "-db", "-f", str(CFG)], env=env, stdout=log,
                                            stderr=subprocess.STDOUT)
        self.wait_status("app1", "UP")
        self.wait_status("app2", "UP")

    def status(self) -> dict[str, str]:
        """HAProxy's own view of each replica (its status page as CSV): UP, DOWN, ..."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=2) as r:
                text = r.read().decode().lstrip("# ")
        except OSError:
            return {}
        return {row["svname"]: row["status"] for row in csv.DictReader(io.StringIO(text))
                if row["pxname"] == "replicas" and row["svname"] in self.ports}

    def wait_status(self, name: str, want: str) -> None:
        deadline = time.monotonic() + START_S
        while self.status().get(name) != want:
            assert self.procs["lb"].poll() is None, "haproxy exited"
            assert time.monotonic() < deadline, f"HAProxy never saw {name} {want}: {self.status()}"
            time.sleep(0.25)

    def kill(self, name: str) -> None:
        self.procs[name].send_signal(signal.SIGKILL)  # a crash, not a shutdown
        self.procs[name].wait(timeout=15)
        self.logs[name].close()

    def stop(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is None:
                if name == "lb":
                    proc.terminate()
                    proc.wait(timeout=15)
                else:
                    stop_process(proc)
        for log in self.logs.values():
            log.close()


class Learner:
    def __init__(self, browser, url: str) -> None:
        self.ctx = browser.new_context(locale="ko-KR", viewport=dict(VIEWPORT))
        self.ctx.set_default_timeout(60_000)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        open_app(self.page, url)
        section(self.page, LANG, "train")
        self.page.evaluate(WATCH_JS)

    def replica(self) -> str | None:
        return next((c["value"] for c in self.ctx.cookies() if c["name"] == COOKIE), None)

    def lost_connection(self) -> bool:
        return self.page.evaluate("() => window.__lbStates.some(s => s !== 'CONNECTED')")

    def step(self) -> int:
        """One Step; returns the step the stage shows after it (one more than before)."""
        before = shown_step(self.page)
        button(self.page, "step").click()
        wait_step(self.page, before + 1)
        return before + 1


def torch_w(steps: int) -> np.ndarray:
    """W of the app's opening example after ``steps`` steps, computed afresh by torch in this process."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(presets.DEFAULT))
    ex.run(steps)
    return ex.lab.weight.detach().numpy().copy()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    try:
        c.start_replica("app1", "app2")
        c.start_balancer()
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def learners(browser, cluster):
    held: list[Learner] = []
    try:
        for _ in range(LEARNERS):
            held.append(Learner(browser, cluster.url))  # one after another: each page's WebSocket is open
        yield held
    finally:
        for learner in held:
            learner.ctx.close()


state: dict = {}  # what the ordered tests of this module hand on: the killed replica, its learners


def test_learners_spread_over_both_replicas_and_stay(cluster, learners):
    first = [l.replica() for l in learners]
    assert set(first) == {"app1", "app2"}, first  # every page's cookie names one replica, and both serve
    for learner in learners:
        for n in range(1, STEPS + 1):
            assert learner.step() == n  # the session stays: no step is lost to another replica
    assert [l.replica() for l in learners] == first
    assert not any(l.lost_connection() for l in learners)
    for name in ("app1", "app2"):  # each replica logged its torch build once, however many learners it serves
        lines = [l for l in cluster.log_path(name).read_text(errors="replace").splitlines()
                 if "embedding_explorer.install" in l]
        assert len(lines) == 1 and "CPU build" in lines[0], lines
    assert all(l.errors == [] for l in learners)


def test_a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners):
    dead = learners[0].replica()
    survivor = "app2" if dead == "app1" else "app1"
    victims = [l for l in learners if l.replica() == dead]
    others = [l for l in learners if l.replica() == survivor]
    state.update(dead=dead, survivor=survivor, victims=victims, others=others)
    cluster.kill(dead)
    for learner in victims:  # the pages that replica served, and only those, lose their connection
        learner.page.wait_for_function(RECONNECTED_JS, timeout=START_S * 1000, polling=100)
    cluster.wait_status(dead, "DOWN")
    assert not any(l.lost_connection() for l in others)
    for learner in victims:
        assert learner.replica() == survivor  # re-pinned by the balancer's answer
    # The last victim is left for the keeper's test; the first one steps on the survivor.
    worker = victims[0]
    shown = shown_step(worker.page)
    assert worker.step() == shown + 1
    for learner in others:  # nobody on the survivor noticed anything
        assert learner.step() == STEPS + 1
    assert worker.replica() == survivor


def test_the_survivor_offers_the_kept_work_and_restores_w_bitwise(cluster, learners):
    victims = state.get("victims") or pytest.skip("the failover test did not run")
    learner = victims[-1]
    assert len(victims) >= 2, "one victim steps (the test above); another needs its work offered untouched"
    page = learner.page
    offer = page.locator(OFFER)
    offer.wait_for(state="visible", timeout=30_000)
    assert f"{STEPS}단계" in offer.inner_text()
    page.get_by_text(label(LANG, "keeper.reconnected")).wait_for(state="visible", timeout=30_000)
    kept = page.evaluate(KEPT_STEPS_JS)
    assert STEPS in kept  # the new session did not overwrite the kept work
    offer.click()
    wait_step(page, STEPS)
    section(page, LANG, "lookup")
    w = lookup_tables(page, LANG)["w"]
    assert np.array_equal(np.stack([w[i] for i in sorted(w)]), torch_w(STEPS))


def test_a_returning_replica_takes_no_live_learner(browser, cluster, learners):
    dead, survivor = state.get("dead"), state.get("survivor")
    if dead is None:
        pytest.skip("the failover test did not run")
    for learner in learners:  # the restored learner was left on the lookup view
        section(learner.page, LANG, "train")
    steps = {id(l): shown_step(l.page) for l in learners}
    cluster.start_replica(dead)
    cluster.wait_status(dead, "UP")
    for learner in learners:
        assert learner.replica() == survivor
        assert learner.step() == steps[id(learner)] + 1  # the same session, one step further
        assert learner.replica() == survivor
    newcomer = Learner(browser, cluster.url)  # the returned replica serves new learners
    try:
        assert newcomer.replica() == dead
        assert newcomer.step() == 1
    finally:
        newcomer.ctx.close()
