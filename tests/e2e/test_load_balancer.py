"""The load-balancer recipe for real: deploy/haproxy.cfg, the file deploy/compose.yaml mounts, run by
Debian's haproxy on loopback in front of two `streamlit run app.py` replicas on free ports.

The addresses reach the file through the environment variables it reads ("${APP1}", ...), as
compose sets them. The scenario (tests/e2e/balancing.py): learners spread over both replicas and
stay; one replica is killed and its learners' pages work on the other, which offers their kept
work back bit for bit; it comes back and no live learner moves. HAProxy's own status page says
when it marks a replica up or down.

The tests of this module run in order and share one cluster. Every wait is a condition with a bound.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import urllib.request

import pytest

from . import balancing as lb
from .helpers import ARTIFACTS, ROOT, unavailable_reason

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
if HAPROXY is None:
    pytest.skip("the load-balancer test needs Debian's haproxy (scripts/test.sh installs it when run as root)",
                allow_module_level=True)

CFG = ROOT / "deploy" / "haproxy.cfg"


class HAProxyCluster(lb.Replicas):
    """Two replicas and HAProxy, with its status page, each on a free loopback port."""

    def __init__(self) -> None:
        super().__init__("lb")
        self.lb_port, self.stats_port = lb.free_port(), lb.free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}/"

    def start_balancer(self) -> None:
        env = os.environ | {"LB_BIND": f"127.0.0.1:{self.lb_port}", "STATS_BIND": f"127.0.0.1:{self.stats_port}",
                            "APP1": f"127.0.0.1:{self.ports['app1']}", "APP2": f"127.0.0.1:{self.ports['app2']}"}
        check = subprocess.run([HAPROXY, "-c", "-f", str(CFG)], env=env, capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        log = self.logs["lb"] = open(ARTIFACTS / "e2e-lb-haproxy.log", "wb")
        self.procs["lb"] = subprocess.Popen([HAPROXY, "-db", "-f", str(CFG)], env=env, stdout=log,
                                            stderr=subprocess.STDOUT)
        self.wait_up("app1")
        self.wait_up("app2")

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

    def wait_down(self, name: str) -> None:
        self.wait_until(f"HAProxy sees {name} DOWN: {self.status()}", lambda: self.status().get(name) == "DOWN")

    def wait_up(self, name: str) -> None:
        self.wait_until(f"HAProxy sees {name} UP: {self.status()}", lambda: self.status().get(name) == "UP")


@pytest.fixture(scope="module")
def cluster():
    yield from lb.cluster_fixture(HAProxyCluster())


@pytest.fixture(scope="module")
def learners(browser, cluster):
    yield from lb.learners_fixture(browser, cluster)


state: dict = {}  # what the ordered tests of this module hand on: the killed replica, its learners


def test_learners_spread_over_both_replicas_and_stay(cluster, learners):
    lb.learners_spread_over_both_replicas_and_stay(cluster, learners)


def test_a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners):
    lb.a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners, state)


def test_the_survivor_offers_the_kept_work_and_restores_w_bitwise(cluster, learners):
    lb.the_survivor_offers_the_kept_work_and_restores_w_bitwise(state)


def test_a_returning_replica_takes_no_live_learner(browser, cluster, learners):
    lb.a_returning_replica_takes_no_live_learner(browser, cluster, learners, state)
