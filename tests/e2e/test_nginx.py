"""The nginx recipe for real: deploy/nginx.conf, run by Debian's nginx on loopback in front of two
`streamlit run app.py` replicas on free ports, passes the scenario HAProxy's does
(tests/e2e/balancing.py: learners spread and stay; a replica killed with SIGKILL, its learners
reconnect to the survivor and are offered their kept work bit for bit; it comes back and no live
learner moves; new learners reach it), and a learner's downloads (/media/...) and uploads (/_stcore/upload_file) reach
the replica that holds their session (with round-robin they did not: 404 and 400).

The file is used as an admin would put it in /etc/nginx/conf.d/, inside a minimal main
configuration; only its replicas' addresses and its `listen` port are replaced by free loopback
ones. Open-source nginx has no status page per replica: the cookie each answer sets says which
replica gave it. The tests of this module run in order and share one cluster.
"""

from __future__ import annotations

import json
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
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
if NGINX is None:
    pytest.skip("the nginx test needs Debian's nginx (scripts/test.sh installs it when run as root)",
                allow_module_level=True)

CFG = ROOT / "deploy" / "nginx.conf"
DEFAULTS = {"app1": "127.0.0.1:8501", "app2": "127.0.0.1:8502"}  # the addresses the file ships with


def recipe(ports: dict[str, int], listen: int) -> str:
    """deploy/nginx.conf with the replicas at ``ports`` on loopback and learners on ``listen``."""
    text = CFG.read_text(encoding="utf-8")
    for name, default in DEFAULTS.items():
        real = f"127.0.0.1:{ports[name]}"
        for old, new in ((default, real), (re.escape(default), re.escape(real))):
            assert old in text, f"{CFG.name} no longer names {old}"
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


class NginxCluster(lb.Replicas):
    """Two replicas and nginx, each on a free loopback port; nginx's files in a private folder."""

    # Open-source nginx sends new learners in turn (round-robin): of two in a row, one should reach
    # the returned replica, but a cookie-less request nginx took in between (a page's own, or one
    # that found the replica still refusing, which leaves it alone for fail_timeout) moves the turn.
    # Four at most; the first that reaches it ends the count. (least_conn would count only the
    # connections of one upstream block, and a learner's page, WebSocket included, is served from
    # its replica's own block.)
    newcomers_to_reach_returned = 4

    def __init__(self) -> None:
        super().__init__("nginx")
        self.lb_port = lb.free_port()
        self.url = f"http://127.0.0.1:{self.lb_port}/"
        self.prefix = Path(tempfile.mkdtemp(prefix="e2e-nginx-"))
        self.prefix.chmod(0o755)  # nginx's workers (another user when it runs as root) write their temp files here

    def start_balancer(self) -> None:
        (self.prefix / "explorer.conf").write_text(recipe(self.ports, self.lb_port), encoding="utf-8")
        main = self.prefix / "nginx.conf"
        main.write_text(main_config(self.prefix, self.prefix / "explorer.conf"), encoding="utf-8")
        cmd = [NGINX, "-p", str(self.prefix), "-c", str(main)]
        check = subprocess.run([*cmd, "-t"], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        log = self.logs["lb"] = open(ARTIFACTS / "e2e-nginx.log", "wb")
        self.procs["lb"] = subprocess.Popen([*cmd, "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
        self.wait_until("nginx answers", lambda: self.served_by() in self.ports)

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
def cluster():
    yield from lb.cluster_fixture(NginxCluster())


@pytest.fixture(scope="module")
def learners(browser, cluster):
    yield from lb.learners_fixture(browser, cluster)


state: dict = {}  # what the ordered tests of this module hand on: the killed replica, its learners


def test_learners_spread_over_both_replicas_and_stay(cluster, learners):
    lb.learners_spread_over_both_replicas_and_stay(cluster, learners)


def test_downloads_and_uploads_reach_the_learners_replica(cluster, learners, tmp_path):
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


def test_a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners):
    lb.a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster, learners, state)


def test_the_survivor_offers_the_kept_work_and_restores_w_bitwise(cluster, learners):
    lb.the_survivor_offers_the_kept_work_and_restores_w_bitwise(state)


def test_a_returning_replica_takes_no_live_learner(browser, cluster, learners):
    lb.a_returning_replica_takes_no_live_learner(browser, cluster, learners, state)
