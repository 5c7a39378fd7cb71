#!/usr/bin/env bash
# verify.sh - runs each archive test/infra/published-server-images.sh built, without a daemon (umoci
# unpacks, runc runs), the way a pod of the operator runs it: the image's user (65532), a read-only
# root file system with a tmpfs on /tmp, no effective capabilities. Speaks MCP to each directly (no
# bridge), checks the tools a published server lists and the result of one call.
#
#   bash test/infra/published-servers/verify.sh [OUT_DIR]   (default: the script's)
#
#   mcp-memory      stdio: tools/list has create_entities and read_graph; create_entities writes
#                   MEMORY_FILE_PATH under /tmp; read_graph returns the entity
#   mcp-time        stdio: tools/list has get_current_time; a call for Europe/Berlin answers with
#                   today's date and the zone
#   mcp-everything  its own entrypoint on a free host port (host network): initialize and
#                   tools/call echo over Streamable HTTP
# Needs root, umoci, runc, jq, python3, curl.
set -euo pipefail

CACHE=${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}
OUT=${1:-$CACHE/published-images}
T=$(mktemp -d /tmp/agw-pubverify.XXXXXX)
ids=()
log() { printf '[verify-published] %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
cleanup() {
  local id
  for id in "${ids[@]}"; do runc delete --force "$id" >/dev/null 2>&1 || true; done
  rm -rf "$T"
}
trap cleanup EXIT

CAPS='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW","CAP_SETGID",
"CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE","CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"]'

# unpack NAME NET [JQ_FILTER]: the archive into the bundle $T/NAME; NET is host or private. The
# root is read-only and /tmp a tmpfs, as the operator renders the pod.
unpack() {
  local name=$1 bundle=$T/$1 net=$2 filter=${3:-.} ref
  rm -rf "$T/layout"
  mkdir -p "$T/layout"
  tar -xf "$OUT/$name.oci.tar" -C "$T/layout"
  ref=$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$T/layout/index.json")
  umoci unpack --image "$T/layout:$ref" "$bundle" >/dev/null
  jq --argjson caps "$CAPS" --arg net "$net" --arg cg "agw-pubverify/$name-$$" '
    .process.terminal = false | .process.noNewPrivileges = true | .linux.cgroupsPath = $cg
    | .process.capabilities = {bounding: $caps, effective: [], permitted: [], inheritable: [], ambient: []}
    | .root.readonly = true
    | .mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777", "size=64m"]}]
    | if $net == "host" then .linux.namespaces |= map(select(.type != "network")) else . end
    | '"$filter" "$bundle/config.json" >"$bundle/config.json.new"
  mv "$bundle/config.json.new" "$bundle/config.json"
  [[ $(jq -r '.process.user.uid' "$bundle/config.json") == 65532 ]] || fail "$name does not run as 65532"
}

# stdio NAME REQUESTS...: runs the server with the JSON-RPC lines on stdin (initialize first; a
# request is written 1 s after the one before, as servers may answer concurrent ones in any order),
# keeps stdin open 3 s for the last answer, then closes it; the answers land in $T/NAME.out.
stdio() {
  local name=$1 id=agw-pubverify-$1-$$
  shift
  ids+=("$id")
  {
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"verify","version":"1"}}}' \
      '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    for line; do
      sleep 1
      printf '%s\n' "$line"
    done
    sleep 3
  } | timeout 60 runc run --bundle "$T/$name" "$id" >"$T/$name.out" 2>"$T/$name.err" || true
}

# answer NAME ID: the result of the request with that id, as JSON.
answer() { jq -c --argjson id "$2" 'select(.id == $id) | .result' "$T/$1.out"; }

verify_memory() {
  unpack mcp-memory private '.process.env += ["MEMORY_FILE_PATH=/tmp/memory.jsonl"]'
  stdio mcp-memory \
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"verify","entityType":"check","observations":["written"]}]}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}'
  answer mcp-memory 1 | jq -e '[.tools[].name] | index("create_entities") and index("read_graph")' >/dev/null ||
    fail "mcp-memory tools/list: $(head -c 2000 "$T/mcp-memory.out") $(cat "$T/mcp-memory.err")"
  answer mcp-memory 3 | grep -q '\\"written\\"' || fail "mcp-memory read_graph: $(answer mcp-memory 3) $(cat "$T/mcp-memory.err")"
  log "mcp-memory: $(answer mcp-memory 1 | jq '.tools | length') tools over stdio; create_entities then read_graph, on a read-only root"
}

verify_time() {
  unpack mcp-time private
  stdio mcp-time \
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_current_time","arguments":{"timezone":"Europe/Berlin"}}}'
  answer mcp-time 1 | jq -e '[.tools[].name] | index("get_current_time")' >/dev/null ||
    fail "mcp-time tools/list: $(head -c 2000 "$T/mcp-time.out") $(cat "$T/mcp-time.err")"
  local text
  text=$(answer mcp-time 2 | jq -r '.content[0].text')
  [[ $text == *Europe/Berlin* && $text == *"$(TZ=Europe/Berlin date +%Y-%m-%d)"* ]] ||
    fail "mcp-time get_current_time: $text $(cat "$T/mcp-time.err")"
  log "mcp-time: get_current_time over stdio: $(jq -c . <<<"$text")"
}

verify_everything() {
  local port id=agw-pubverify-everything-$$ i headers session body
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  unpack mcp-everything host '.process.env += ["PORT='"$port"'"]'
  ids+=("$id")
  runc run --bundle "$T/mcp-everything" "$id" </dev/null >"$T/everything.log" 2>&1 &
  for i in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
  headers=$T/everything.headers
  curl -sf -D "$headers" -o "$T/everything.init" "http://127.0.0.1:$port/mcp" \
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"verify","version":"1"}}}' ||
    fail "mcp-everything initialize on $port: $(cat "$T/everything.log")"
  session=$(awk -F': ' 'tolower($1) == "mcp-session-id" {print $2}' "$headers" | tr -d '\r')
  curl -sf -o /dev/null "http://127.0.0.1:$port/mcp" -H "mcp-session-id: $session" \
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2025-06-18' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  body=$(curl -sf "http://127.0.0.1:$port/mcp" -H "mcp-session-id: $session" \
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2025-06-18' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"from a pod"}}}') ||
    fail "mcp-everything tools/call: $(cat "$T/everything.log")"
  grep -q 'Echo: from a pod' <<<"$body" || fail "mcp-everything echo answered: $body"
  [[ $(awk '/^Uid:/ {print $2}' "/proc/$(runc state "$id" | jq -r .pid)/status") == 65532 ]] || fail "mcp-everything not uid 65532"
  # SIGKILL: node as PID 1 has no default SIGTERM action and the server sets none (in a pod the
  # kubelet kills it after the grace period).
  runc kill "$id" KILL
  wait || true
  log "mcp-everything: Streamable HTTP on 0.0.0.0:$port (its own entrypoint), echo answered, uid 65532, read-only root"
}

[[ $(id -u) == 0 ]] || fail "run as root (runc)"
for name in mcp-memory mcp-time mcp-everything; do [[ -f $OUT/$name.oci.tar ]] || fail "no $OUT/$name.oci.tar"; done
verify_memory
verify_time
verify_everything
log "all published-server images verified"
