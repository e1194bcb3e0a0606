"""The load-balancer recipes for real, on loopback, in front of the same two `streamlit run app.py`
replicas on free ports: deploy/haproxy.cfg (the file deploy/compose.yaml mounts) run by Debian's
haproxy, then deploy/nginx.conf run by Debian's nginx. Each passes the scenario of
tests/e2e/balancing.py: learners spread over both replicas and stay; one replica is killed (SIGKILL)
and its learners' pages work on the other, which offers their kept work back bit for bit; it comes
back and no live learner moves; new learners reach it.

HAProxy reads the addresses from the environment variables the file names ("${APP1}", ...), as
compose sets them; its own status page says when it marks a replica up or down. nginx reads its file
as an admin would put it in /etc/nginx/conf.d/, inside a minimal main configuration, with only its
replicas' addresses and its `listen` port replaced by free loopback ones; open-source nginx has no
status page per replica, so the cookie each answer sets says which replica gave it. Behind each, a
learner's downloads (/media/...) and uploads (/_stcore/upload_file) also reach the replica that
holds their session (with round-robin they did not: 404 and 400).

The replicas start once for the module; each balancer's tests run in order in their class, with
their own learners, closed (and the balancer stopped) when the class ends. Every wait is a
condition with a bound.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from . import balancing as lb
from .helpers import ARTIFACTS, ROOT, export_button, import_state, label, section, unavailable_reason, wait_js, wait_step

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
if HAPROXY is None or NGINX is None:
    pytest.skip("the load-balancer tests need Debian's haproxy and nginx (scripts/test.sh installs them when run "
                "as root)", allow_module_level=True)

HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"


class HAProxyCluster(lb.Balancer):
    """HAProxy and its status page, each on a free loopback port, in front of ``replicas``."""

    def __init__(self, replicas: lb.Replicas) -> None:
        super().__init__(replicas)
        self.lb_port, self.stats_port = lb.free_port(), lb.free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}/"

    def start_balancer(self) -> None:
        env = os.environ | {"LB_BIND": f"127.0.0.1:{self.lb_port}", "STATS_BIND": f"127.0.0.1:{self.stats_port}",
                            "APP1": f"127.0.0.1:{self.replicas.ports['app1']}", "APP2": f"127.0.0.1:{self.replicas.ports['app2']}"}
        check = subprocess.run([HAPROXY, "-c", "-f", str(HAPROXY_CFG)], env=env, capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        log = self.log = open(ARTIFACTS / "e2e-lb-haproxy.log", "wb")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(HAPROXY_CFG)], env=env, stdout=log,
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
                if row["pxname"] == "replicas" and row["svname"] in self.replicas.ports}

    def wait_down(self, name: str) -> None:
        self.wait_until(f"HAProxy sees {name} DOWN: {self.status()}", lambda: self.status().get(name) == "DOWN")

    def wait_up(self, name: str) -> None:
        self.wait_until(f"HAProxy sees {name} UP: {self.status()}", lambda: self.status().get(name) == "UP")


NGINX_CFG = ROOT / "deploy" / "nginx.conf"
DEFAULTS = {"app1": "127.0.0.1:8501", "app2": "127.0.0.1:8502"}  # the addresses the file ships with


def recipe(ports: dict[str, int], listen: int) -> str:
    """deploy/nginx.conf with the replicas at ``ports`` on loopback and learners on ``listen``."""
    text = NGINX_CFG.read_text(encoding="utf-8")
    for name, default in DEFAULTS.items():
        real = f"127.0.0.1:{ports[name]}"
        for old, new in ((default, real), (re.escape(default), re.escape(real))):
            assert old in text, f"{NGINX_CFG.name} no longer names {old}"
            text = text.replace(old, new)
    text, n = re.subn(r"^(\s*)listen 80;$", rf"\1listen 127.0.0.1:{listen};", text, flags=re.M)
    assert n == 1
    return text


def main_config(prefix: Path, include: Path) -> str:
    """A minimal nginx.conf around the recipe (Debian's reads conf.d/*.conf inside its http block)."""
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                            "scgi"))
    return (f"pid {prefix / 'nginx.pid'};\nerror_log {ARTIFACTS / 'e2e-nginx-error.log'} info;\n"
            f"events {{ worker_connections 1024; }}\n"
            f"http {{\n    access_log {ARTIFACTS / 'e2e-nginx-access.log'};\n{temp}\n    include {include};\n}}\n")


class NginxCluster(lb.Balancer):
    """nginx on a free loopback port in front of ``replicas``; its files in a private folder."""

    # Open-source nginx sends new learners in turn (round-robin): of two in a row, one should reach
    # the returned replica, but a cookie-less request nginx took in between (a page's own, or one
    # that found the replica still refusing, which leaves it alone for fail_timeout) moves the turn.
    # Four at most; the first that reaches it ends the count. (least_conn would count only the
    # connections of one upstream block, and a learner's page, WebSocket included, is served from
    # its replica's own block.)
    newcomers_to_reach_returned = 4

    def __init__(self, replicas: lb.Replicas) -> None:
        super().__init__(replicas)
        self.lb_port = lb.free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}/"
        self.prefix = Path(tempfile.mkdtemp(prefix="e2e-nginx-"))
        self.prefix.chmod(0o755)  # nginx's workers (another user when it runs as root) write their temp files here

    def start_balancer(self) -> None:
        (self.prefix / "explorer.conf").write_text(recipe(self.replicas.ports, self.lb_port), encoding="utf-8")
        main = self.prefix / "nginx.conf"
        main.write_text(main_config(self.prefix, self.prefix / "explorer.conf"), encoding="utf-8")
        cmd = [NGINX, "-p", str(self.prefix), "-c", str(main)]
        check = subprocess.run([*cmd, "-t"], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        log = self.log = open(ARTIFACTS / "e2e-nginx.log", "wb")
        self.proc = subprocess.Popen([*cmd, "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
        self.wait_until("nginx answers", lambda: self.served_by() in self.replicas.ports)

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.prefix, ignore_errors=True)

    def served_by(self, cookie: str | None = None) -> str | None:
        """The replica nginx's answer names in its cookie, for a request carrying ``cookie`` (None: a new learner)."""
        req = urllib.request.Request(self.url + "_stcore/health", headers={"Cookie": f"{lb.COOKIE}={cookie}"}
                                     if cookie else {})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(req, timeout=5) as r:
                cookies = r.headers.get_all("Set-Cookie") or []
        except OSError:
            return None
        return next((c.split(";")[0].split("=", 1)[1] for c in cookies if c.startswith(f"{lb.COOKIE}=")), None)

    def wait_down(self, name: str) -> None:
        self.wait_until(f"nginx sends {name}'s learners to the other replica",
                        lambda: self.served_by(cookie=name) not in (name, None))

    def wait_up(self, name: str) -> None:
        self.wait_until(f"nginx sends a new learner to {name}", lambda: self.served_by() == name)


@pytest.fixture(scope="module")
def replicas():
    """The two replicas both balancers are put in front of, started once."""
    reps = lb.Replicas("lb")
    try:
        reps.start_missing()
        yield reps
    finally:
        reps.stop()


class Scenario:
    """balancing.py's scenario, in order, for the balancer ``make`` builds; ``state`` is the subclass's own."""

    make: type
    state: dict

    @pytest.fixture(scope="class")
    def cluster(self, replicas):
        yield from lb.balancer_fixture(self.make(replicas))

    @pytest.fixture(scope="class")
    def learners(self, browser, cluster):
        yield from lb.learners_fixture(browser, cluster)

    def test_learners_spread_over_both_replicas_and_stay(self, cluster, learners):
        lb.learners_spread_over_both_replicas_and_stay(cluster, learners)

    def test_downloads_and_uploads_reach_the_learners_replica(self, cluster, learners, tmp_path):
        """On each replica, one learner downloads the state (a file Streamlit holds in that replica's
        memory, at /media/...) and uploads it back (/_stcore/upload_file, into that session)."""
        one_each = {l.replica(): l for l in learners}
        assert set(one_each) == {"app1", "app2"}
        for name, learner in sorted(one_each.items()):
            page, uploads = learner.page, []
            page.on("response", lambda r, seen=uploads: seen.append(r.status) if urlparse(r.url).path.startswith(
                "/_stcore/upload_file/") and r.request.method != "OPTIONS" else None)
            section(page, lb.LANG, "share")
            with page.expect_download() as download:
                export_button(page, lb.LANG).click()
            assert urlparse(download.value.url).path.startswith("/media/"), download.value.url
            assert download.value.failure() is None, download.value.failure()
            path = tmp_path / f"{name}.json"
            download.value.save_as(str(path))
            assert json.loads(path.read_text(encoding="utf-8"))["steps"] == lb.STEPS
            import_state(page, path)
            wait_js(page, "(s) => texts('stAlertContentInfo').some(x => x.includes(s))",
                    label(lb.LANG, "share.imported", steps=lb.STEPS))
            assert uploads and all(200 <= s < 300 for s in uploads), uploads
            section(page, lb.LANG, "train")
            wait_step(page, lb.STEPS)
            assert learner.replica() == name and not learner.lost_connection() and learner.errors == []

    def test_a_killed_replicas_learners_reconnect_to_the_survivor_and_work(self, cluster, learners):
        lb.a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners, self.state)

    def test_the_survivor_offers_the_kept_work_and_restores_w_bitwise(self, cluster, learners):
        lb.the_survivor_offers_the_kept_work_and_restores_w_bitwise(self.state)

    def test_a_returning_replica_takes_no_live_learner(self, browser, cluster, learners):
        lb.a_returning_replica_takes_no_live_learner(browser, cluster, learners, self.state)


class TestHAProxy(Scenario):
    make = HAProxyCluster
    state: dict = {}  # what the ordered tests hand on: the killed replica, its learners


class TestNginx(Scenario):
    make = NginxCluster
    state: dict = {}
