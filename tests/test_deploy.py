"""The deploy recipes (deploy/): the Kubernetes manifest validates against Kubernetes' schema, the compose
file validates and hands HAProxy the addresses its configuration reads, that configuration is valid
and sticky by cookie, and the Hugging Face Space header names what the app needs.

The load-balancer configuration is also run for real, on loopback: tests/e2e/test_balancers.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
HEALTH = "/_stcore/health"


def upload_limit_mb() -> int:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["server"]["maxUploadSize"]


def tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=sysconfig.get_path("scripts")) or \
        shutil.which(name, path="/usr/sbin")


# ---- Kubernetes ---------------------------------------------------------------------------------
def manifests() -> dict[str, dict]:
    docs = yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text(encoding="utf-8"))
    return {d["kind"]: d for d in docs}


def validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([tool("kubernetes-validate"), "--strict", str(path)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(tool("kubernetes-validate") is None, reason="kubernetes-validate not installed "
                    "(requirements-dev.txt)")
def test_the_kubernetes_manifest_validates_and_a_broken_one_does_not(tmp_path):
    done = validate(DEPLOY / "kubernetes.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    for kind in ("deployment", "poddisruptionbudget", "service", "ingress"):
        assert f"passed for resource {kind}/embedding-explorer" in done.stdout + done.stderr
    broken = tmp_path / "broken.yaml"  # the validator does read the schema: a wrong type fails
    broken.write_text((DEPLOY / "kubernetes.yaml").read_text(encoding="utf-8").replace(
        "containerPort: 8501", 'containerPort: "8501"'), encoding="utf-8")
    assert validate(broken).returncode != 0


def test_the_kubernetes_recipe_is_sticky_probed_and_bounded():
    m = manifests()
    pod = m["Deployment"]["spec"]["template"]["spec"]
    app = pod["containers"][0]
    assert m["Deployment"]["spec"]["replicas"] >= 2
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert app[probe]["httpGet"]["path"] == HEALTH, probe
    assert {"requests", "limits"} <= set(app["resources"]) and "memory" in app["resources"]["limits"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    notes = m["Ingress"]["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/affinity-mode"] == "persistent"  # never rebalanced
    assert int(notes["nginx.ingress.kubernetes.io/proxy-body-size"].removesuffix("m")) > upload_limit_mb()
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600  # a lesson's WebSocket
    backend = m["Ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == m["Service"]["metadata"]["name"]
    assert m["Service"]["spec"]["selector"] == m["Deployment"]["spec"]["selector"]["matchLabels"]


def test_a_rollout_or_a_drain_ends_one_pod_at_a_time_after_its_pages_had_time():
    """Readiness a busy pod does not fail, a PodDisruptionBudget, a preStop that drains and a grace
    period that covers the drain and the server's own stop (server/hooks.py)."""
    from server import hooks as server_hooks

    m = manifests()
    spec = m["Deployment"]["spec"]
    pod = spec["template"]["spec"]
    app = pod["containers"][0]
    # Above the health check's slowest answer while a class presses Step at once (bench/bench_health.py,
    # bench/RESULTS.md); Kubernetes' default timeout is 1 s.
    assert app["readinessProbe"]["timeoutSeconds"] >= 5 and app["readinessProbe"]["failureThreshold"] >= 2
    assert all(app[p].get("timeoutSeconds", 1) >= 5 for p in ("startupProbe", "livenessProbe"))
    assert spec["strategy"]["rollingUpdate"] == {"maxSurge": 1, "maxUnavailable": 0}  # a new pod first
    pdb = m["PodDisruptionBudget"]["spec"]
    assert pdb["selector"] == spec["selector"] and pdb["maxUnavailable"] == 1 < spec["replicas"]
    command = app["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    drain = int(command[1])
    assert drain >= 15  # the Ingress controller learns the pod is gone; a Step or Run under way ends
    stop = server_hooks.STOP_WAIT_SECONDS + server_hooks.RUNTIME_STOP_SECONDS
    assert pod["terminationGracePeriodSeconds"] >= drain + stop + 5


# ---- compose + HAProxy --------------------------------------------------------------------------
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def haproxy_cfg() -> str:
    """deploy/haproxy.cfg without its comments."""
    lines = (DEPLOY / "haproxy.cfg").read_text(encoding="utf-8").splitlines()
    return "\n".join(l for l in lines if not l.lstrip().startswith("#"))


def test_compose_runs_replicas_of_the_image_and_hands_haproxy_every_address_it_reads():
    services = compose()["services"]
    replicas = sorted(n for n in services if re.fullmatch(r"app\d+", n))
    assert len(replicas) >= 2
    for name in replicas:
        assert services[name]["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    lb = services["lb"]
    assert lb["image"].startswith("haproxy:")
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in lb["volumes"]
    cfg = haproxy_cfg()
    read = set(re.findall(r"\$\{([A-Z0-9_]+)", cfg))
    assert read == set(lb["environment"])  # every variable the file reads is set, and no other
    servers = re.findall(r"^\s*server (\w+) \"\$\{(\w+)-[^}]*\}\" cookie (\w+)$", cfg, re.M)
    assert [s[0] for s in servers] == replicas and all(s[0] == s[2] for s in servers)
    for name, var, _ in servers:
        assert lb["environment"][var] == f"{name}:8501"
    port = lb["environment"]["LB_BIND"].rsplit(":", 1)[1]
    assert any(p.endswith(f":{port}") for p in lb["ports"])


def test_haproxy_is_sticky_by_cookie_without_flipping_back_and_checks_health():
    cfg = haproxy_cfg()
    assert re.search(r"^\s*cookie SERVERID insert indirect nocache\b", cfg, re.M)
    assert re.search(r"^\s*option redispatch$", cfg, re.M)
    assert not re.search(r"^\s*(balance (source|uri)|hash-type consistent)", cfg, re.M)  # no address/hash pinning
    assert re.search(r'^\s*http-check send meth GET uri "\$\{HEALTH_PATH-/_stcore/health\}"', cfg, re.M)
    assert re.search(r"^\s*http-check expect string ok$", cfg, re.M)
    hours = re.search(r"^\s*timeout tunnel (\d+)h$", cfg, re.M)
    assert hours and int(hours.group(1)) >= 1  # a lesson's WebSocket is not cut
    # HAProxy forwards Host as the browser sent it unless told otherwise, and limits no body size.
    assert not re.search(r"set-header Host|http-request deny .*body", cfg)


@pytest.mark.skipif(tool("haproxy") is None, reason="haproxy not installed (scripts/test.sh: apt-get, as root)")
def test_haproxy_accepts_the_file_with_the_compose_environment_and_rejects_a_broken_one(tmp_path):
    env = os.environ | {k: v for k, v in compose()["services"]["lb"]["environment"].items()}
    # Outside Docker's network the replicas' names do not resolve: loopback stands in for them.
    env |= {k: "127.0.0.1:8501" for k in env if re.fullmatch(r"APP\d+", k)}
    done = subprocess.run([tool("haproxy"), "-c", "-f", str(DEPLOY / "haproxy.cfg")], env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0 and "Configuration file is valid" in done.stdout + done.stderr, done.stderr
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(haproxy_cfg().replace("balance leastconn", "balance leastconnection"), encoding="utf-8")
    assert subprocess.run([tool("haproxy"), "-c", "-f", str(broken)], env=env, capture_output=True,
                          timeout=30).returncode != 0


@pytest.mark.skipif(tool("docker-compose") is None, reason="docker-compose not installed (scripts/test.sh: "
                    "Debian's docker-compose, as root)")
def test_docker_compose_validates_the_file_without_a_daemon():
    done = subprocess.run([tool("docker-compose"), "-f", str(DEPLOY / "compose.yaml"), "config", "--quiet"],
                          capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("DOCKER_")})
    assert done.returncode == 0, done.stdout + done.stderr


# ---- nginx ------------------------------------------------------------------------------------------
def nginx_recipe() -> str:
    """deploy/nginx.conf without its comments."""
    lines = (DEPLOY / "nginx.conf").read_text(encoding="utf-8").splitlines()
    return "\n".join(l for l in lines if not l.lstrip().startswith("#"))


def test_nginx_is_sticky_by_a_cookie_it_sets_with_open_source_directives_only():
    text = nginx_recipe()
    assert not re.search(r"^\s*(sticky|ip_hash|health_check|zone_sync)\b", text, re.M)  # nginx Plus, or by address
    assert re.search(r"^map \$cookie_SERVERID \$explorer_pool \{", text, re.M)
    assert re.search(r"^map \$upstream_addr \$explorer_cookie \{", text, re.M)
    assert re.search(r"^\s*proxy_pass http://\$explorer_pool;$", text, re.M)
    assert re.search(r"^\s*add_header Set-Cookie \$explorer_cookie always;$", text, re.M)
    # Each replica's own upstream has the other replica as its backup.
    for own, other in (("8501", "8502"), ("8502", "8501")):
        block = re.search(r"upstream explorer_app%s \{(.*?)\}" % ("1" if own == "8501" else "2"), text, re.S).group(1)
        assert re.search(rf"server 127\.0\.0\.1:{own} ", block) and f"server 127.0.0.1:{other} backup;" in block
    assert re.search(r"^\s*proxy_set_header Host \$http_host;$", text, re.M)  # $host drops the port
    assert re.search(r"^\s*proxy_set_header Upgrade \$http_upgrade;$", text, re.M)
    assert re.search(r"^\s*proxy_http_version 1\.1;$", text, re.M)
    assert re.search(r"^\s*proxy_buffering off;$", text, re.M)
    hours = re.search(r"^\s*proxy_read_timeout (\d+)h;$", text, re.M)
    assert hours and int(hours.group(1)) >= 1  # a lesson's WebSocket is not cut
    body = re.search(r"^\s*client_max_body_size (\d+)m;$", text, re.M)
    assert body and int(body.group(1)) > upload_limit_mb()


def nginx_test(tmp_path: Path, recipe: Path) -> subprocess.CompletedProcess:
    """`nginx -t` of ``recipe`` read inside a minimal main configuration, as conf.d/ files are."""
    main = tmp_path / "nginx.conf"
    main.write_text(f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\nevents {{}}\n"
                    f"http {{ access_log off; include {recipe}; }}\n", encoding="utf-8")
    return subprocess.run([tool("nginx"), "-t", "-p", str(tmp_path), "-c", str(main)], capture_output=True, text=True,
                          timeout=30)


@pytest.mark.skipif(tool("nginx") is None, reason="nginx not installed (scripts/test.sh: apt-get, as root)")
def test_nginx_accepts_the_recipe_and_rejects_a_broken_one(tmp_path):
    done = nginx_test(tmp_path, DEPLOY / "nginx.conf")
    assert done.returncode == 0 and "test is successful" in done.stderr, done.stderr
    broken = tmp_path / "broken.conf"
    broken.write_text((DEPLOY / "nginx.conf").read_text(encoding="utf-8").replace("proxy_buffering off;",
                                                                               "proxy_buffering of;"), encoding="utf-8")
    assert nginx_test(tmp_path, broken).returncode != 0


# ---- Hugging Face Space, Streamlit Community Cloud ------------------------------------------------
def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    head = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert head, f"{path} has no YAML header"
    return yaml.safe_load(head.group(1))


def test_the_space_header_runs_the_app_on_a_python_streamlit_accepts():
    from importlib.metadata import metadata

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    head = front_matter(DEPLOY / "huggingface" / "README.md")
    assert head["sdk"] == "streamlit" and (ROOT / head["app_file"]).is_file()
    pins = [Requirement(l.split(" #")[0]) for l in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
            if l.startswith("streamlit==")]
    assert head["sdk_version"] == str(pins[0].specifier).removeprefix("==")
    assert isinstance(head["python_version"], str)  # a YAML 3.10 would be the number 3.1
    assert SpecifierSet(metadata("streamlit")["Requires-Python"]).contains(head["python_version"])


def test_deploy_readme_names_every_recipe_and_the_commands_it_tests():
    text = (DEPLOY / "README.md").read_text(encoding="utf-8")
    for needed in ("docker build -f deploy/Dockerfile", "docker compose -p embedding-explorer -f deploy/compose.yaml",
                   "kubectl apply -f deploy/kubernetes.yaml", "deploy/huggingface/README.md", "Community Cloud",
                   "scripts/lock.sh", "scripts/check_install.py"):
        assert needed in text, needed
    for path in re.findall(r"`((?:deploy|scripts|tests)/[\w./-]+)`", text):
        assert (ROOT / path).exists(), path
