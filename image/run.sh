#!/usr/bin/env bash
# Runs the image from an OCI archive with runc, without a daemon: unpacks it (umoci) into a bundle,
# keeps the image's user (65532), entrypoint and environment, makes the root filesystem read-only
# with a tmpfs /tmp, and uses the host's network (so a gateway inside listens on this machine).
# podman cannot run containers on this test machine (it sets RLIMIT_NOFILE, which needs
# CAP_SYS_RESOURCE); runc with no rlimits in the spec can.
#
#   bash image/run.sh ARCHIVE NAME [--mount HOST:CONTAINER]... -- ARGS...
#
# The container runs in the foreground; `runc kill NAME TERM` from elsewhere stops it.
set -euo pipefail
archive=$1 name=$2
shift 2
mounts=()
while [[ $# -gt 0 && $1 != -- ]]; do
  [[ $1 == --mount ]] && { mounts+=("$2"); shift 2; continue; }
  echo "unknown option $1" >&2; exit 2
done
[[ ${1:-} == -- ]] && shift
bundle=$(mktemp -d)
trap 'runc delete -f "$name" >/dev/null 2>&1 || true; rm -rf "$bundle"' EXIT
tag=${archive##*-}; tag=${tag%.oci.tar}
mkdir -p "$bundle/layout"
tar -xf "$archive" -C "$bundle/layout"
umoci unpack --image "$bundle/layout:$tag" "$bundle/b" >/dev/null
python3 - "$bundle/b/config.json" "$@" <<'PY'
import json, sys
path, args = sys.argv[1], sys.argv[2:]
c = json.load(open(path))
p = c['process']
if args:
    p['args'] = p['args'][:2] + args
p['terminal'] = False
p['rlimits'] = []
c['root']['readonly'] = True
c['linux']['namespaces'] = [n for n in c['linux']['namespaces'] if n['type'] not in ('network', 'cgroup')]
c['linux'].pop('resources', None)
c['mounts'] = [m for m in c['mounts'] if m['type'] != 'cgroup' and m['destination'] != '/sys/fs/cgroup']
c['mounts'].append({'destination': '/tmp', 'type': 'tmpfs', 'source': 'tmpfs', 'options': ['nosuid', 'nodev', 'mode=1777']})
c['mounts'].append({'destination': '/var/lib/agent-gateway', 'type': 'tmpfs', 'source': 'tmpfs', 'options': ['nosuid', 'nodev', 'mode=0777']})
c['mounts'].append({'destination': '/etc/resolv.conf', 'type': 'bind', 'source': '/etc/resolv.conf', 'options': ['rbind', 'ro']})
json.dump(c, open(path, 'w'))
PY
for m in "${mounts[@]}"; do
  python3 - "$bundle/b/config.json" "${m%%:*}" "${m#*:}" <<'PY'
import json, sys
path, src, dst = sys.argv[1:]
c = json.load(open(path))
c['mounts'].append({'destination': dst, 'type': 'bind', 'source': src, 'options': ['rbind', 'ro']})
json.dump(c, open(path, 'w'))
PY
done
cp "$bundle/b/config.json" "${RUN_SPEC_COPY:-/dev/null}" 2>/dev/null || true
runc run --bundle "$bundle/b" "$name"
