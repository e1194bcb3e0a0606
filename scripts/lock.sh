#!/usr/bin/env bash
# Regenerate deploy/requirements.lock: requirements.txt resolved for the image's Python (3.11,
# Linux, amd64 and arm64), every package pinned with its sha256 hashes (deploy/Dockerfile installs it with
# --require-hashes). Run it with the Python the image uses, where PyPI and PyTorch's CPU index
# are reachable: pip-compile then records the hash of every torch 2.13.0+cpu wheel (amd64 and
# arm64 images alike). Where the CPU index is not reachable it finds torch only on this machine's
# disk and records that wheel's hash alone (deploy/README.md, "The lock").
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install -q pip-tools==7.6.2
# The index is written by hand: pip-compile would also copy this machine's own pip configuration.
# --retries 1: an unreachable CPU index costs each package one failed lookup, not five with back-off.
"$tools/venv/bin/pip-compile" -q --generate-hashes --allow-unsafe --strip-extras \
  --no-emit-index-url --no-emit-find-links --no-header --pip-args "--retries 1" \
  --output-file "$tools/lock" requirements.txt
{
  echo "# deploy/requirements.lock: made by scripts/lock.sh from requirements.txt (Python 3.11, Linux)."
  echo "# pip install --require-hashes -r deploy/requirements.lock"
  echo "--extra-index-url https://download.pytorch.org/whl/cpu"
  echo
  cat "$tools/lock"
} > deploy/requirements.lock
grep -A3 '^torch==' deploy/requirements.lock
# The image is built for linux/amd64 and linux/arm64: the lock needs a torch hash for each.
if [ "$(sed -n '/^torch==/,/^[^ ]/p' deploy/requirements.lock | grep -c -- '--hash=')" -lt 2 ]; then
  echo "warning: the lock holds one torch wheel's hash only (PyTorch's CPU index was not reachable);" \
       "an image for the other platform will not build: run this where download.pytorch.org is reachable" >&2
  exit 1
fi
