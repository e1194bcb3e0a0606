#!/usr/bin/env bash
# Everything the test suite needs on a fresh machine, then the suite itself.
# Used verbatim by README.md ("Run the tests") and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium and CJK fonts for the real-browser tests (Debian's packages; no browser download).
if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
  else
    echo "note: chromium not installable here (needs root and apt); the browser tests will be skipped" >&2
  fi
fi

python -m pip install -q -r requirements-dev.txt

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
python -m pytest "$@"
