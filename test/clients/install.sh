#!/usr/bin/env bash
# Installs the current clients that test/integration/clients-python.test.ts and clients-go.test.ts drive,
# cached outside the work tree (CI runs on a fresh clone of the same machine):
# - Python: a virtualenv under ~/.cache/kafkite/venv with python/requirements.txt's pinned versions, made
#   again only when that file changes (pip takes its wheels from ~/.cache/pip);
# - Go: go/go.mod's modules (go.sum checks them) into the module cache, and one build of the client program,
#   which fills ~/.cache/go-build so that the test's own build takes seconds.
set -euo pipefail
cd "$(dirname "$0")"

venv="$HOME/.cache/kafkite/venv"
if ! cmp -s python/requirements.txt "$venv/requirements.txt"; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r python/requirements.txt
  cp python/requirements.txt "$venv/requirements.txt"
fi

cd go
go mod download
go build -o /dev/null .
