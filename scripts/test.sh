#!/usr/bin/env bash
# Everything the test suite needs on a fresh machine, then the suite itself.
# Used verbatim by README.md ("For developers") and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's packages (no browser or binary download): Chromium and CJK fonts for the real-browser
# tests; haproxy and nginx for the load-balancer tests (tests/e2e/test_balancers.py runs
# deploy/haproxy.cfg and deploy/nginx.conf, each on a loopback port of its own); docker-compose to validate deploy/compose.yaml (no Docker daemon: --no-install-recommends
# keeps the engine out).
browser=() servers=()
[ -x /usr/bin/chromium ] || browser+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || browser+=(fonts-noto-cjk)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || servers+=(haproxy)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || servers+=(nginx)
command -v docker-compose >/dev/null || servers+=(docker-compose)
if [ $(( ${#browser[@]} + ${#servers[@]} )) -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    [ ${#browser[@]} -eq 0 ] || apt-get install -y -qq "${browser[@]}" >/dev/null
    [ ${#servers[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${servers[@]}" >/dev/null
  else
    echo "note: ${browser[*]} ${servers[*]} not installable here (needs root and apt); the tests that use them will be skipped" >&2
  fi
fi

# --retries 1: requirements.txt names PyTorch's CPU index; where it cannot be reached, pip would
# retry it five times, with back-off, for every package (minutes in all).
python -m pip install -q --retries 1 -r requirements-dev.txt

# axe-core for the accessibility tests (tests/e2e/test_a11y.py reads .cache/axe), from npm by name.
if command -v npm >/dev/null; then
  npm install --prefix .cache/axe --no-audit --no-fund --silent axe-core@4 \
    || echo "note: npm could not install axe-core; the accessibility tests will be skipped" >&2
else
  echo "note: npm not found; the accessibility tests will be skipped (they need axe-core from npm)" >&2
fi
# The stage's pure JavaScript (its planners, colours, number formats and motion) under node's own
# test runner; the browser tests cover the rest of it.
if command -v node >/dev/null; then
  node --test tests/js/
else
  echo "note: node not found; the stage's JavaScript unit tests (tests/js/) are skipped" >&2
fi
# Three workers on two cores, each test file in one of them (module-scoped servers stay shared
# within a file): a browser test spends part of its time waiting for a server or for Chromium's
# frames, and the third worker uses the cores meanwhile. Files go out in the order tests/conftest.py
# gives (browser tests first), not xdist's largest-count-first. The 25 slowest tests are listed at
# the end: where the suite's time goes.
python -m pytest -n 3 --dist loadfile --no-loadscope-reorder --durations=25 "$@"
