#!/usr/bin/env bash
# Builds docker/Dockerfile with buildah (no Docker engine, no registry) and smoke-tests the image:
#   1. a local base image: Debian trixie (debootstrap, minbase) + the node on PATH (Node 26 from the npm
#      registry, as .ci/run sets it up) and this machine's npm, as the official node:26 images are (trixie
#      only), cached in buildah's storage under a tag naming the Node version and the suite;
#   2. `buildah bud` of docker/Dockerfile on that base, no pulls;
#   3. the image's entrypoint run with host networking and KAFKA_* overrides, checked from the host
#      with kcat (metadata, produce, consume) and the admin HTTP, then stopped with SIGTERM; the image's
#      node is the runtime line (KAFKITE_NODE_LINE, 26) on trixie.
# Needs root. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE_TAG=${KAFKITE_IMAGE_TAG:-localhost/kafkite:ci}
NODE_LINE=${KAFKITE_NODE_LINE:-26}
DEBIAN_SUITE=trixie

# The Debian archive this machine's apt uses for a suite: the URI of the first source (deb822 .sources files,
# then one-line sources.list files) that lists it. The image is built from the same mirror or proxy.
apt_uri_for_suite() {
  local suite=$1 file
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f $file ]] || continue
    # deb822 stanzas are blank-line separated; URIs and Suites hold space-separated lists.
    awk -v want="$suite" '
      function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && uri != "" && !found) { print uri; found = 1 } types = suites = uri = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "types:" { $1 = ""; types = $0 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { $1 = ""; suites = $0 }
      END { flush() }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $file ]] || continue
    # deb [options] uri suite components...
    awk -v want="$suite" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i + 1) == want) print $i }' "$file"
  done
}

# DEBIAN_MIRROR (and DEBIAN_SECURITY_MIRROR) override what this machine's apt uses. A machine on another
# release (bookworm here) lists only its own suites: the archive that serves them serves trixie too.
MACHINE_SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
apt_uri() { { apt_uri_for_suite "$DEBIAN_SUITE$1"; [[ -z $MACHINE_SUITE ]] || apt_uri_for_suite "$MACHINE_SUITE$1"; } | head -n 1; }
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(apt_uri '')}
DEBIAN_SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-$(apt_uri -security)}
if [[ -z $DEBIAN_MIRROR ]]; then
  echo "build-image: no Debian $DEBIAN_SUITE source in this machine's apt configuration; set DEBIAN_MIRROR" >&2
  exit 1
fi
# apt's own proxy, if the machine has one, serves debootstrap and the image's apt as well.
APT_HTTP_PROXY=$(apt-config dump Acquire::http::Proxy 2>/dev/null | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' | head -n 1)
if [[ -n $APT_HTTP_PROXY && -z ${http_proxy:-} ]]; then export http_proxy=$APT_HTTP_PROXY; fi
NODE_BIN=$(command -v node)
NODE_VERSION=$(node --version)
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
BASE_TAG="localhost/kafkite-base:node${NODE_VERSION#v}-${DEBIAN_SUITE}"

export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
bh() { buildah --storage-driver vfs "$@"; }

# Every `buildah run` and RUN step re-executes buildah from a sealed memfd copy of itself (containers/storage's
# unshare). Sealing that copy failed once with EBUSY (stop 25's CI, on the Dockerfile's first RUN) and did not
# recur in 3,300 seals of the same binary here, idle or under write load. Nothing has run in the container
# then, so the command is repeated; any other failure is not.
MEMFD_SEAL_FAILURE='sealing memfd copy: Device or resource busy'
ATTEMPTS=3
sealing_failed() { grep -q "$MEMFD_SEAL_FAILURE" "$1"; }
retry_note() { echo "build-image: buildah could not seal its re-exec copy (EBUSY); attempt $1 of $ATTEMPTS" >&2; sleep 2; }

# `buildah run` in the foreground: its standard output passes through; its standard error is kept to tell a
# failed seal from a failed command.
bh_run() {
  local attempt status
  for ((attempt = 1; ; attempt++)); do
    status=0
    bh run "$@" 2>"$work_dir/run.err" || status=$?
    cat "$work_dir/run.err" >&2
    if ((status != 0 && attempt < ATTEMPTS)) && sealing_failed "$work_dir/run.err"; then
      retry_note $((attempt + 1))
      continue
    fi
    return "$status"
  done
}

step_started=0
step() {
  step_started=$SECONDS
  printf '\n==> %s\n' "$*"
}
step_done() { printf '<== done in %ds\n' $((SECONDS - step_started)); }
die() {
  printf 'build-image: FAILED: %s\n' "$*" >&2
  exit 1
}
[[ $NODE_VERSION == "v$NODE_LINE".* ]] ||
  die "the node on PATH is $NODE_VERSION, the image's is Node $NODE_LINE: run from .ci/run, or with Node $NODE_LINE first on PATH"

descendants() { local child; for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done; }

work_dir=$(mktemp -d /tmp/kafkite-image.XXXXXX)
base_container=''
run_container=''
run_pid=''
cleanup() {
  if [[ -n $run_pid ]] && kill -0 "$run_pid" 2>/dev/null; then
    kill -KILL $(descendants "$run_pid") "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  [[ -n $run_container ]] && bh rm "$run_container" >/dev/null 2>&1 || true
  [[ -n $base_container ]] && bh rm "$base_container" >/dev/null 2>&1 || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

step "tools: buildah, debootstrap, kcat"
missing=()
for tool in buildah debootstrap kcat; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if ((${#missing[@]} > 0)); then
  echo "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
buildah --version
step_done

step "base image $BASE_TAG (Debian $DEBIAN_SUITE minbase + node $NODE_VERSION from $NODE_BIN, npm from $NPM_DIR)"
if bh inspect --type image "$BASE_TAG" >/dev/null 2>&1; then
  echo "cached: reusing $BASE_TAG"
else
  base_container=$(bh from scratch)
  rootfs=$(bh mount "$base_container")
  echo "debootstrap from $DEBIAN_MIRROR into $rootfs"
  # libatomic1: Node 26's release binary links libatomic.so.1 (22's and 24's do not).
  debootstrap --variant=minbase --include=libatomic1 "$DEBIAN_SUITE" "$rootfs" "$DEBIAN_MIRROR" >"$work_dir/debootstrap.log" 2>&1 ||
    { tail -20 "$work_dir/debootstrap.log"; die "debootstrap"; }
  {
    echo "deb $DEBIAN_MIRROR $DEBIAN_SUITE main"
    echo "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main"
    [[ -z $DEBIAN_SECURITY_MIRROR ]] || echo "deb $DEBIAN_SECURITY_MIRROR $DEBIAN_SUITE-security main"
  } >"$rootfs/etc/apt/sources.list"
  [[ -z $APT_HTTP_PROXY ]] || echo "Acquire::http::Proxy \"$APT_HTTP_PROXY\";" >"$rootfs/etc/apt/apt.conf.d/01proxy"
  install -D -m 0755 "$NODE_BIN" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$NPM_DIR" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # Node's headers, as Node's release tarball has them: node-gyp builds against them without a download.
  cp -a "$(dirname "$(dirname "$NODE_BIN")")/include/node" "$rootfs/usr/local/include/node"
  # The machine's trusted CAs: npm on this machine may reach the registry through a TLS-inspecting proxy
  # whose CA only the machine's bundle has. Node in the image trusts what Node on the machine trusts.
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  bh umount "$base_container" >/dev/null
  bh config --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$base_container"
  bh_run "$base_container" -- node -e 'console.log(`node ${process.version} runs in the base image`)'
  bh_run --network host "$base_container" -- npm ping
  bh config --env NODE_VERSION="${NODE_VERSION#v}" --cmd node \
    --label org.opencontainers.image.description="Debian $DEBIAN_SUITE with Node $NODE_VERSION" "$base_container"
  bh commit --quiet --rm "$base_container" "$BASE_TAG" >/dev/null
  base_container=''
fi
step_done

step "image $IMAGE_TAG from docker/Dockerfile (BASE_IMAGE=$BASE_TAG)"
# --network host: the build stage reaches Debian's mirror and the npm registry. --format docker keeps
# HEALTHCHECK (OCI image config has no such field). No --layers: on vfs every cached layer costs a full
# copy of the image's tree, more than the apt-get and npm ci it would save (measured: 98s cached vs 80s).
previous_image=$(bh inspect --type image --format '{{.FromImageID}}' "$IMAGE_TAG" 2>/dev/null || true)
for ((attempt = 1; ; attempt++)); do
  bud_status=0
  bh bud --pull=never --network host --format docker \
    --ignorefile docker/Dockerfile.dockerignore --build-arg BASE_IMAGE="$BASE_TAG" -f docker/Dockerfile -t "$IMAGE_TAG" . 2>&1 |
    tee "$work_dir/bud.log" |
    { grep --line-buffered -E '^((\[[0-9]+/[0-9]+\] )?(STEP|COMMIT)|Successfully)|added [0-9]+ packages' || true; } ||
    bud_status=$?
  if ((bud_status != 0 && attempt < ATTEMPTS)) && sealing_failed "$work_dir/bud.log"; then
    retry_note $((attempt + 1))
    continue
  fi
  break
done
if ((bud_status != 0)); then
  tail -40 "$work_dir/bud.log"
  die "buildah bud exited with $bud_status"
fi
# The image this build replaced under the tag; vfs keeps every one at full size otherwise.
if [[ -n $previous_image && $previous_image != "$(bh inspect --type image --format '{{.FromImageID}}' "$IMAGE_TAG")" ]]; then
  bh rmi "$previous_image" >/dev/null 2>&1 || true
fi
bh inspect --type image --format 'user {{.Docker.Config.User}}, entrypoint {{.Docker.Config.Entrypoint}}, healthcheck {{.Docker.Config.Healthcheck.Test}}' "$IMAGE_TAG"
echo
bh images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$IMAGE_TAG"
step_done

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

step "run the image's entrypoint (host network, KAFKA_NUM_PARTITIONS=3)"
# The image's own ports when free; otherwise free ones through the same KAFKA_* overrides.
kafka_port=9092
admin_port=9644
admin_token=smoke-$RANDOM$RANDOM
env_args=(--env KAFKA_NUM_PARTITIONS=3 --env KAFKITE_ADVERTISED_HOST=127.0.0.1 --env "KAFKA_KAFKITE_ADMIN_TOKEN=$admin_token")
if ! port_free $kafka_port || ! port_free $admin_port; then
  kafka_port=$(free_port)
  admin_port=$(free_port)
  env_args+=(--env "KAFKA_LISTENERS=PLAINTEXT://0.0.0.0:$kafka_port"
    --env "KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://127.0.0.1:$kafka_port"
    --env "KAFKA_ADMIN_LISTENER=http://0.0.0.0:$admin_port")
fi
echo "broker on 127.0.0.1:$kafka_port, admin on 127.0.0.1:$admin_port"
run_container=$(bh from --pull=never "$IMAGE_TAG")
for ((attempt = 1; ; attempt++)); do
  # buildah run does not apply the image's ENTRYPOINT; run it explicitly (as the image's user).
  bh run --network host "${env_args[@]}" "$run_container" -- /usr/local/bin/kafkite-entrypoint.sh \
    >"$work_dir/broker.log" 2>&1 &
  run_pid=$!
  for _ in $(seq 1 150); do
    grep -q '"kafkite started"' "$work_dir/broker.log" && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.2
  done
  if ! kill -0 "$run_pid" 2>/dev/null && ((attempt < ATTEMPTS)) && sealing_failed "$work_dir/broker.log"; then
    wait "$run_pid" || true
    retry_note $((attempt + 1))
    continue
  fi
  break
done
kill -0 "$run_pid" 2>/dev/null || grep -q '"kafkite started"' "$work_dir/broker.log" ||
  { cat "$work_dir/broker.log"; die "the broker exited before starting"; }
grep -q '"kafkite started"' "$work_dir/broker.log" || { cat "$work_dir/broker.log"; die "no 'kafkite started' within 30s"; }
step_done

step "check from the host: kcat metadata, produce, consume; admin /health, /ready, /metrics"
broker=127.0.0.1:$kafka_port
seq 1 100 | sed 's/^/record-/' | kcat -b "$broker" -P -t image-smoke || die "kcat produce"
consumed=$(kcat -b "$broker" -C -t image-smoke -o beginning -e -q | sort -V)
[[ $consumed == "$(seq 1 100 | sed 's/^/record-/')" ]] || die "consumed records differ from produced: $(wc -l <<<"$consumed") lines"
echo "produced and consumed 100 records"
partitions=$(kcat -b "$broker" -L -t image-smoke | grep -c 'partition [0-9]*, leader' || true)
[[ $partitions == 3 ]] || die "image-smoke has $partitions partitions, expected 3 (KAFKA_NUM_PARTITIONS=3)"
echo "image-smoke has 3 partitions (KAFKA_NUM_PARTITIONS applied)"
admin=http://127.0.0.1:$admin_port
for path in /health /ready; do
  node -e 'fetch(process.argv[1],{headers:{authorization:"Bearer "+process.argv[2]}}).then(async r=>{console.log(r.status, await r.text()); process.exit(r.ok?0:1)}, e=>{console.error(e.message); process.exit(1)})' "$admin$path" "$admin_token" ||
    die "GET $path"
done
node -e 'fetch(process.argv[1]).then(r=>{console.log("without the token:", r.status); process.exit(r.status===401?0:1)}, e=>{console.error(e.message); process.exit(1)})' "$admin/metrics" ||
  die "GET /metrics without the admin token must answer 401"
bh_run --network host "${env_args[@]}" "$run_container" -- node /opt/kafkite/healthcheck.js || die "the image's HEALTHCHECK failed"
echo "HEALTHCHECK command passes"
[[ $(bh_run "$run_container" -- id -un) == kafkite ]] || die "the image does not run as user kafkite"
echo "runs as user kafkite"
image_node=$(bh_run "$run_container" -- node --version)
[[ $image_node == "v$NODE_LINE".* ]] || die "the image's node is $image_node, expected Node $NODE_LINE"
image_suite=$(bh_run "$run_container" -- sh -c '. /etc/os-release && echo "$VERSION_CODENAME"')
[[ $image_suite == "$DEBIAN_SUITE" ]] || die "the image is Debian $image_suite, expected $DEBIAN_SUITE"
echo "node $image_node on Debian $image_suite"
grep -q '"fetch data is sent with sendfile(2)"' "$work_dir/broker.log" || die "the native sendfile addon is not in the image"
echo "native sendfile addon loaded"
node -e 'fetch(process.argv[1],{headers:{authorization:"Bearer "+process.argv[2]}}).then(r=>r.text()).then(t=>{const l=t.split("\n").filter(l=>l.startsWith("kafkite_")); console.log(l.length+" kafkite_ samples"); process.exit(l.length?0:1)}, e=>{console.error(e.message); process.exit(1)})' "$admin/metrics" "$admin_token" ||
  die "GET /metrics"
step_done

step "stop with SIGTERM"
# As `docker stop` signals the container's PID 1 (the entrypoint exec'd into node): signal that node
# process, found among the descendants of our buildah run.
broker_pid=''
for pid in $(descendants "$run_pid"); do
  grep -qa '/opt/kafkite/bin/kafkite.js' "/proc/$pid/cmdline" 2>/dev/null && broker_pid=$pid
done
[[ -n $broker_pid ]] || die "cannot find the broker's process under buildah run ($run_pid)"
kill -TERM "$broker_pid"
status=0
wait "$run_pid" || status=$?
run_pid=''
tail -n 3 "$work_dir/broker.log"
[[ $status == 0 ]] || die "buildah run exited with $status after SIGTERM"
grep -q '"kafkite stopped"' "$work_dir/broker.log" || die "no 'kafkite stopped' in the broker's log"
echo "clean stop (exit 0, 'kafkite stopped')"
step_done

printf '\nbuild-image: OK (%s, %ds total)\n' "$IMAGE_TAG" "$SECONDS"
