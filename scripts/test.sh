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
python -m pytest "$@"
