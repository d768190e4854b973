#!/usr/bin/env bash
# Installs the current clients that test/integration/clients-python.test.ts, clients-go.test.ts and
# schema-registry-clients.test.ts drive,
# cached outside the work tree (CI runs on a fresh clone of the same machine):
# - Python: a virtualenv under ~/.cache/kafkite/venv with python/requirements.txt's pinned versions, and one
#   under ~/.cache/kafkite/venv-quixstreams with python/requirements-quixstreams.txt's, each made again only
#   when its file changes (pip takes its wheels from ~/.cache/pip);
# - Go: go/go.mod's modules (go.sum checks them) into the module cache, and one build of the client program,
#   which fills ~/.cache/go-build so that the test's own build takes seconds.
set -euo pipefail
cd "$(dirname "$0")"

# make_venv REQUIREMENTS DIR: the virtualenv DIR with REQUIREMENTS' pins, made again when that file changes.
make_venv() {
  local requirements=$1 venv=$2
  cmp -s "$requirements" "$venv/requirements.txt" && return
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
}
make_venv python/requirements.txt "$HOME/.cache/kafkite/venv"
# quixstreams (test/integration/quixstreams.test.ts) needs an older confluent-kafka than the clients': its own.
make_venv python/requirements-quixstreams.txt "$HOME/.cache/kafkite/venv-quixstreams"

cd go
go mod download
go build -o /dev/null .
# franz-go's schema registry client (pkg/sr), for test/integration/schema-registry-clients.test.ts
cd ../../integration/franz-sr
go mod download
