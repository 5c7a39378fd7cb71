#!/usr/bin/env bash
# verify-images.sh - runs each archive test/infra/cluster-images.sh built, without a daemon (umoci
# unpacks, runc runs; the runc a kubelet's containerd would use), and checks what the test cluster
# relies on. Not `ctr run`: containerd puts every shim's socket under /run/containerd/s whatever
# its --state says, and this check must not touch a host's containerd directories.
#
#   bash test/infra/images/verify-images.sh [OUT_DIR]    (default: cluster-images.sh's)
#
#   pause     stays up as PID 1, reaps an orphan that exits, exits 0 on SIGTERM
#   coredns   --version; serves DNS on port 53 as uid 65532 with no effective capabilities (the
#             file capability alone), in its own network namespace
#   redis     answers PING on a free host port (host network)
#   postgres  initialises, pg_isready inside it, `select 1` over TCP with the password, a wrong
#             password refused, exits 0 on SIGINT, restarts on the same data without initialising
# Needs root, umoci, runc, jq, python3, redis-cli, psql.
set -euo pipefail

CACHE=${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}
OUT=${1:-$CACHE/images}
T=$(mktemp -d /tmp/agw-imgverify.XXXXXX)
ids=()
log() { printf '[verify-images] %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
cleanup() {
  local id
  for id in "${ids[@]}"; do runc delete --force "$id" >/dev/null 2>&1 || true; done
  rm -rf "$T"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# What containerd's CRI grants by default, as a bounding set only: a non-root process starts with no
# effective capabilities, as in a pod.
CAPS='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW","CAP_SETGID",
"CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE","CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"]'

# unpack NAME BUNDLE NET JQ_FILTER: an archive into a runc bundle; NET is host or private.
unpack() {
  local name=$1 bundle=$T/$2 net=$3 filter=${4:-.} ref
  rm -rf "$T/layout"
  mkdir -p "$T/layout"
  tar -xf "$OUT/$name.oci.tar" -C "$T/layout"
  ref=$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$T/layout/index.json")
  umoci unpack --image "$T/layout:$ref" "$bundle" >/dev/null
  jq --argjson caps "$CAPS" --arg net "$net" --arg cg "agw-imgverify/$2-$$" '
    .process.terminal = false | .process.noNewPrivileges = false | .linux.cgroupsPath = $cg
    | .process.capabilities = {bounding: $caps, effective: [], permitted: [], inheritable: [], ambient: []}
    | if $net == "host" then .linux.namespaces |= map(select(.type != "network")) else . end
    | '"$filter" "$bundle/config.json" >"$bundle/config.json.new"
  mv "$bundle/config.json.new" "$bundle/config.json"
}

# start BUNDLE ID: runs in the background (runc in the foreground of a job, so its exit code is
# the container's); sets $rpid.
start() {
  ids+=("$2")
  runc run --bundle "$T/$1" "$2" </dev/null >"$T/$2.log" 2>&1 &
  rpid=$!
  local i
  for i in $(seq 50); do
    [[ $(runc state "$2" 2>/dev/null | jq -r .status) == running ]] && return
    sleep 0.1
  done
  cat "$T/$2.log" >&2
  fail "$2 did not start"
}

# run_once BUNDLE ID: runs to the end in the foreground; output in $T/ID.log.
run_once() {
  ids+=("$2")
  runc run --bundle "$T/$1" "$2" </dev/null >"$T/$2.log" 2>&1
}

init_pid() { runc state "$1" | jq -r .pid; }

# children PID: the states (R, S, Z…) of PID's children, one a line.
children() {
  local p
  for p in /proc/[0-9]*; do
    [[ $(awk '/^PPid:/ {print $2}' "$p/status" 2>/dev/null) == "$1" ]] && awk '/^State:/ {print $2}' "$p/status"
  done
  return 0
}

verify_pause() {
  unpack pause pause private
  start pause agw-verify-pause-$$
  local pid zombies
  pid=$(init_pid agw-verify-pause-$$)
  sleep 1
  [[ $(runc state agw-verify-pause-$$ | jq -r .status) == running ]] || fail "pause exited"
  # An orphan in the pod's PID namespace: the shell exits at once, its sleep is reparented to
  # pause and must not stay a zombie after it ends.
  nsenter --target "$pid" --pid sh -c 'sleep 1 & exit 0'
  sleep 0.3
  [[ $(children "$pid") == S ]] || fail "the orphan was not reparented to pause: $(children "$pid")"
  sleep 1.5
  zombies=$(children "$pid")
  [[ -z $zombies ]] || fail "pause left children behind: $zombies"
  runc kill agw-verify-pause-$$ TERM
  local rc=0
  wait "$rpid" || rc=$?
  [[ $rc == 0 ]] || fail "pause exited $rc on SIGTERM"
  log "pause: up as PID 1, reaped an orphan, exit 0 on SIGTERM"
}

verify_coredns() {
  unpack coredns coredns-version private '.process.args += ["-version"]'
  run_once coredns-version agw-verify-coredns-v-$$ || fail "coredns -version failed"
  grep -q '^CoreDNS-' "$T/agw-verify-coredns-v-$$.log" || fail "coredns -version: $(cat "$T/agw-verify-coredns-v-$$.log")"
  log "coredns: $(head -1 "$T/agw-verify-coredns-v-$$.log")"
  # No Corefile: the default server (whoami on port 53).
  unpack coredns coredns private
  start coredns agw-verify-coredns-$$
  local pid answer
  pid=$(init_pid agw-verify-coredns-$$)
  sleep 1
  answer=$(nsenter --target "$pid" --net python3 -c '
import socket, struct
q = struct.pack(">HHHHHH", 0x4147, 0x0100, 1, 0, 0, 0) + b"\x07example\x03org\x00" + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
s.sendto(q, ("127.0.0.1", 53)); r = s.recv(512)
print("id-ok" if r[:2] == b"\x41\x47" else "bad-id", "rcode", r[3] & 15)') ||
    fail "coredns did not answer on port 53: $(cat "$T/agw-verify-coredns-$$.log")"
  [[ $answer == "id-ok rcode 0" ]] || fail "coredns answered: $answer"
  [[ $(awk '/^Uid:/ {print $2}' "/proc/$pid/status") == 65532 ]] || fail "coredns not uid 65532"
  runc kill agw-verify-coredns-$$ TERM
  wait "$rpid" || true
  log "coredns: answered DNS on port 53 as uid 65532 with no effective capabilities"
}

verify_redis() {
  local port
  port=$(free_port)
  unpack redis redis host '.process.args += ["--port", "'"$port"'"]'
  start redis agw-verify-redis-$$
  local i reply=
  for i in $(seq 50); do
    reply=$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) && [[ $reply == PONG ]] && break
    sleep 0.1
  done
  [[ $reply == PONG ]] || fail "redis: no PONG on $port: $(cat "$T/agw-verify-redis-$$.log")"
  [[ $(awk '/^Uid:/ {print $2}' "/proc/$(init_pid agw-verify-redis-$$)/status") == 65532 ]] || fail "redis not uid 65532"
  runc kill agw-verify-redis-$$ TERM
  wait "$rpid" || true
  log "redis: PONG on 127.0.0.1:$port as uid 65532"
}

# pg_wait ID: pg_isready inside the container (as a readiness probe runs it) until it succeeds.
pg_wait() {
  local i
  for i in $(seq 120); do
    runc exec "$1" pg_isready -q -h 127.0.0.1 && return
    sleep 0.5
  done
  cat "$T/$1.log" >&2
  fail "postgres never ready"
}

verify_postgres() {
  local port id=agw-verify-postgres-$$ rc=0
  port=$(free_port)
  unpack postgres postgres host '.process.env += ["PGPORT='"$port"'", "POSTGRES_USER=agw",
    "POSTGRES_PASSWORD=s3cret pass", "POSTGRES_DB=agw_test"]'
  start postgres "$id"
  pg_wait "$id"
  [[ $(psql -XAtq "postgresql://agw:s3cret%20pass@127.0.0.1:$port/agw_test" -c 'select 1') == 1 ]] ||
    fail "postgres: select 1 failed"
  # A pod connects from its own address, not loopback: the 0.0.0.0/0 rule must let it in.
  local ip
  ip=$(hostname -I | awk '{print $1}')
  if [[ -n $ip && $ip != 127.* ]]; then
    [[ $(psql -XAtq "postgresql://agw:s3cret%20pass@$ip:$port/agw_test" -c 'select inet_client_addr()') == "$ip" ]] ||
      fail "postgres: no connection from $ip"
  fi
  ! PGCONNECT_TIMEOUT=5 psql -XAtq "postgresql://agw:wrong@127.0.0.1:$port/agw_test" -c 'select 1' 2>/dev/null ||
    fail "postgres accepted a wrong password"
  runc kill "$id" INT
  wait "$rpid" || rc=$?
  [[ $rc == 0 ]] || fail "postgres exited $rc on SIGINT"
  runc delete "$id" >/dev/null 2>&1 || true
  start postgres "$id-2"
  pg_wait "$id-2"
  grep -q initialised "$T/$id-2.log" && fail "postgres initialised again on restart"
  [[ $(psql -XAtq "postgresql://agw:s3cret%20pass@127.0.0.1:$port/agw_test" -c 'select current_user') == agw ]] ||
    fail "postgres: query after restart failed"
  runc kill "$id-2" INT
  wait "$rpid" || true
  log "postgres: initialised, pg_isready inside, select 1 with scram over 127.0.0.1:$port and ${ip:-?}, wrong password refused, exit 0 on SIGINT, restart kept the data"
}

[[ $(id -u) == 0 ]] || fail "run as root (runc)"
for name in pause coredns redis postgres; do [[ -f $OUT/$name.oci.tar ]] || fail "no $OUT/$name.oci.tar"; done
verify_pause
verify_coredns
verify_redis
verify_postgres
log "all images verified"
