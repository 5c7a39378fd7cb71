#!/usr/bin/env bash
# kube-cluster.sh - a one-node Kubernetes cluster for the pod tests (issue 21), from parts this machine
# has: no Docker, no kind, no registry. kube-apiserver + etcd (kube-test-env.sh, bound to the node's
# address), kube-controller-manager, kube-scheduler, a kubelet on containerd (Debian's 1.6 with runc),
# the bridge CNI, kube-proxy in iptables mode, kube-router's firewall enforcing NetworkPolicies, and
# CoreDNS, with images imported from OCI archives.
#
#   kube-cluster.sh build     # node binaries + images, cached (~/.cache/kube-test-env, ~/.cache/agw-cluster)
#   eval "$(kube-cluster.sh start)"   # prints export KUBECONFIG=... PATH=...; waits for the node and DNS
#   kube-cluster.sh import ARCHIVE NAME   # an OCI archive into the node's containerd as NAME
#   kube-cluster.sh stop      # every pod, process, mount, interface, iptables rule and ipset it made
#
# Addresses: everything lives on interfaces it creates. The node is a veth interface agwnode0 with
# 10.213.0.1 (apiserver, kubelet); pods get 10.214.0.0/24 on the bridge agwcni0; Services 10.215.0.0/24
# (routed to agwnode0 so the host reaches ClusterIPs through kube-proxy's OUTPUT rules). Nothing
# listens on the machine's own addresses, and no pod can reach past the machine (no masquerade out).
# NetworkPolicies: the bridge CNI enforces none, so kube-router v2.1.0 runs as a host process with its
# firewall only (--run-router=false --run-service-proxy=false): per-pod iptables chains (KUBE-ROUTER-*,
# KUBE-POD-FW-*, KUBE-NWPLCY-*) and ipsets, with bridge-nf-call-iptables=1 so traffic between two pods
# of the bridge passes them. It rejects what no policy allows (the caller sees ECONNREFUSED) and lets
# the node itself reach every pod (kubelet probes, this machine's calls to ClusterIPs). v2.1.0 is the
# only v2 the Go module proxy serves here (flaws are reported against it: test-only); nftables-based
# kube-network-policies needs NFT_QUEUE, which this kernel lacks (docs/decisions.md). Built by `build`
# into ~/.cache/agw-cluster/bin, named by a hash of its version, the Go version and the build function
# (cold: ~2-3 min). CoreDNS listens on 53 in its pod, as in kubeadm clusters, since policies name
# the pod's port.
# Needs root, the Debian packages containerd runc containernetworking-plugins iptables conntrack ipset,
# and cgroup v1 or v2 (this VM has v1: the kubelet is told failCgroupV1=false). The VM refuses negative
# oom_score_adj, so containerd clamps scores and the kubelet uses 0. `stop` removes every KUBE-* iptables
# chain (the kubelet's, kube-proxy's and kube-router's) and kube-router's ipsets (KUBE-SRC-*, KUBE-DST-*):
# do not run it on a machine that is itself a Kubernetes node.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
KUBE_TEST_BIN=${KUBE_TEST_BIN:-$HOME/.cache/kube-test-env}
AGW_CLUSTER_CACHE=${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}
AGW_CLUSTER_DIR=${AGW_CLUSTER_DIR:-${TMPDIR:-/tmp}/agw-cluster-$(id -u)}
NODE_NAME=agw-node
NODE_IF=agwnode0
NODE_IP=10.213.0.1
POD_BRIDGE=agwcni0
POD_CIDR=10.214.0.0/24
SERVICE_CIDR=10.215.0.0/24
SERVICE_IP=10.215.0.1
DNS_IP=10.215.0.10
API_PORT=${AGW_CLUSTER_API_PORT:-16443}
KUBELET_PORT=10350
KUBE_ROUTER_VERSION=${KUBE_ROUTER_VERSION:-v2.1.0}   # the only v2 the Go module proxy serves here
D=$AGW_CLUSTER_DIR
SOCK=$D/containerd/containerd.sock
BIN=$KUBE_TEST_BIN/bin

log() { printf '[kube-cluster] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
kctl() { "$BIN/kubectl" --kubeconfig "$D/kube/kubeconfig" "$@"; }
ctr_() { ctr --address "$SOCK" -n k8s.io "$@"; }

api_env() {
  export KUBE_TEST_DIR=$D/kube KUBE_TEST_BIND=$NODE_IP KUBE_TEST_PORT=$API_PORT \
    KUBE_TEST_ETCD_PORT=${AGW_CLUSTER_ETCD_PORT:-16579} KUBE_TEST_ETCD_PEER_PORT=${AGW_CLUSTER_ETCD_PEER_PORT:-16580} \
    KUBE_TEST_SERVICE_CIDR=$SERVICE_CIDR KUBE_TEST_SERVICE_IP=$SERVICE_IP KUBE_TEST_NODE_MODE=1
}

print_env() {
  echo "export KUBECONFIG=$D/kube/kubeconfig"
  echo "export PATH=$BIN:\$PATH"
}

# The NetworkPolicy engine: kube-router's firewall alone (no routing, no service proxy), as a host
# process. It writes iptables chains and ipsets, which this kernel has; kube-network-policies needs
# nfqueue, which it has not (docs/decisions.md). Cached by content: the file name carries a hash of
# the version, the Go version and this function's own text, so editing the build makes a new one.
build_kube_router() {
  local out w t0=$SECONDS old
  out=$(kube_router_bin)
  if [[ -x $out ]]; then log "cached: $out"; return; fi
  command -v go >/dev/null || die "go not found (needs >= 1.21)"
  mkdir -p "$AGW_CLUSTER_CACHE/bin"
  exec 7>"$AGW_CLUSTER_CACHE/bin/.kube-router.lock"; flock 7
  [[ -x $out ]] && { log "cached: $out"; return; }
  w=$(mktemp -d "$AGW_CLUSTER_CACHE/bin/.kube-router-build.XXXXXX")
  log "building kube-router $KUBE_ROUTER_VERSION from the Go module proxy"
  # Its go.mod has no replace lines, so `go install module/cmd@version` builds it as released.
  if ! (cd "$w" && CGO_ENABLED=0 GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOFLAGS=-mod=mod GOBIN=$w go install -trimpath \
    -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION" \
    "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION") > "$w/build.log" 2>&1; then
    tail -20 "$w/build.log" >&2; rm -rf "$w"; die "kube-router build failed"
  fi
  mv -f "$w/kube-router" "$out"
  rm -rf "$w"
  for old in "$AGW_CLUSTER_CACHE"/bin/kube-router-*; do [[ $old == "$out" ]] || rm -f "$old"; done
  log "built kube-router $KUBE_ROUTER_VERSION in $((SECONDS - t0))s ($out)"
}

kube_router_bin() {
  local key
  key=$({ echo "$KUBE_ROUTER_VERSION"; go env GOVERSION 2>/dev/null; declare -f build_kube_router; } | sha256sum | cut -c1-12)
  echo "$AGW_CLUSTER_CACHE/bin/kube-router-$KUBE_ROUTER_VERSION-$key"
}

cmd_build() {
  local t0=$SECONDS
  bash "$here/ensure-kube.sh"
  bash "$here/kube-test-env.sh" build-node
  bash "$here/cluster-images.sh" "$AGW_CLUSTER_CACHE/images" >/dev/null
  build_kube_router
  log "build done in $((SECONDS - t0))s"
}

pid_alive() {  # $1 = pid file holding "pid exe"
  local pid exe
  [[ -f $1 ]] || return 1
  read -r pid exe < "$1" || return 1
  [[ -n $pid && -d /proc/$pid ]] && [[ $(readlink -f "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$exe")" ]]
}

spawn() {  # $1 = name, rest = command; logs to $D/logs/name.log, pid to $D/pids/name.pid
  local name=$1 exe; shift
  exe=$(command -v "$1")
  setsid "$@" > "$D/logs/$name.log" 2>&1 < /dev/null 8>&- &   # 8 = the start lock: children must not hold it
  echo "$! $exe" > "$D/pids/$name.pid"
}

wait_for() {  # $1 = seconds, $2 = what, rest = command that succeeds when done
  local limit=$1 what=$2 i; shift 2
  for ((i = 0; i < limit * 4; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  die "no $what after ${limit}s (logs: $D/logs)"
}

net_up() {
  command -v modprobe >/dev/null && { modprobe br_netfilter || true; modprobe overlay || true; } 2>/dev/null
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  # A veth pair rather than a dummy interface: this VM's kernel has no dummy driver. Both ends up, so
  # the link has carrier and the Service route through it is used.
  ip link show "$NODE_IF" >/dev/null 2>&1 || ip link add "$NODE_IF" type veth peer name "${NODE_IF}p"
  ip addr replace "$NODE_IP/32" dev "$NODE_IF"
  ip link set "${NODE_IF}p" up
  ip link set "$NODE_IF" up
  ip route replace "$SERVICE_CIDR" dev "$NODE_IF" src "$NODE_IP"
  printf 'nameserver %s\n' "$NODE_IP" > "$D/resolv.conf"   # pods with dnsPolicy Default: nothing outside
  mkdir -p "$D/cni/net.d"
  cat > "$D/cni/net.d/10-agw-bridge.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "agw-pods",
  "plugins": [
    { "type": "bridge", "bridge": "$POD_BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "$POD_CIDR" }]], "routes": [{ "dst": "0.0.0.0/0" }],
                "dataDir": "$D/cni/ipam" } },
    { "type": "portmap", "capabilities": { "portMappings": true } },
    { "type": "loopback" }
  ]
}
EOF
}

containerd_up() {
  mkdir -p "$D/containerd"
  cat > "$D/containerd/config.toml" <<EOF
version = 2
root = "$D/containerd/root"
state = "$D/containerd/state"
oom_score = 0
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$D/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/agw-pause:1"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$D/cni/net.d"
EOF
  spawn containerd containerd --config "$D/containerd/config.toml"
  wait_for 30 "containerd socket" ctr --address "$SOCK" version
}

cmd_import() {  # $1 = OCI archive, $2 = image name (repo:tag)
  local archive=$1 name=$2
  [[ -f $archive ]] || die "no archive $archive"
  # --base-name names an archive whose ref.name is only a tag (image/build.sh's); a base name that
  # does not match a full ref.name imports nothing and still exits 0, hence the check.
  ctr_ images import --base-name "${name%:*}" "$archive" >/dev/null
  # The list is read whole before grep looks at it: under pipefail, `ctr … | grep -q` fails whenever
  # grep exits at the first match while ctr is still writing (SIGPIPE), even though the name is there.
  local have
  have=$(ctr_ images ls -q)
  grep -qxF "$name" <<<"$have" || die "imported $archive but no image named $name (have: $(tr '\n' ' ' <<<"$have"))"
}

import_images() {  # the archives of cluster-images.sh carry their full names; each is written to <archive>.name
  local dir=$AGW_CLUSTER_CACHE/images f name
  for f in "$dir"/{pause,coredns,redis,postgres}.oci.tar; do
    [[ -f $f ]] || die "no $f - run: $0 build"
    name=$(tar -xOf "$f" index.json | grep -o '"org.opencontainers.image.ref.name":"[^"]*"' | head -1 | cut -d'"' -f4)
    [[ $name == localhost/* ]] || die "$f names no localhost/ image (got '$name')"
    cmd_import "$f" "$name"
    printf '%s\n' "$name" > "${f%.oci.tar}.name"
  done
}

kubelet_up() {
  mkdir -p "$D/kubelet"
  cat > "$D/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10348
authentication:
  anonymous: { enabled: true }
  webhook: { enabled: false }
authorization: { mode: AlwaysAllow }
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
cgroupsPerQOS: false
enforceNodeAllocatable: []
oomScoreAdj: 0
containerRuntimeEndpoint: unix://$SOCK
clusterDNS: [$DNS_IP]
clusterDomain: cluster.local
resolvConf: $D/resolv.conf
serializeImagePulls: false
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 60
EOF
  spawn kubelet "$BIN/kubelet" --config "$D/kubelet/config.yaml" --kubeconfig "$D/kube/kubeconfig" \
    --root-dir "$D/kubelet/root" --cert-dir "$D/kubelet/pki" --hostname-override "$NODE_NAME" \
    --node-ip "$NODE_IP" --v=1
}

control_up() {
  local p=$D/kube/pki
  spawn controller-manager "$BIN/kube-controller-manager" --kubeconfig "$D/kube/kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 10357 --leader-elect=false \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --use-service-account-credentials=false --service-cluster-ip-range "$SERVICE_CIDR" \
    --cluster-cidr "$POD_CIDR" --allocate-node-cidrs=false --controllers '*,-nodeipam' \
    --concurrent-deployment-syncs 10 --v=0
  spawn scheduler "$BIN/kube-scheduler" --kubeconfig "$D/kube/kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 10359 --leader-elect=false --v=0
  spawn kube-proxy "$BIN/kube-proxy" --kubeconfig "$D/kube/kubeconfig" --proxy-mode iptables \
    --hostname-override "$NODE_NAME" --cluster-cidr "$POD_CIDR" --bind-address "$NODE_IP" \
    --nodeport-addresses "$NODE_IP/32" --metrics-bind-address 127.0.0.1:10349 \
    --healthz-bind-address 127.0.0.1:10356 --conntrack-max-per-core 0 --v=0
}

dns_up() {
  local image
  image=$(cat "$AGW_CLUSTER_CACHE/images/coredns.name")   # written by import_images
  kctl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ServiceAccount
metadata: { name: coredns, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: system:coredns }
rules:
  - apiGroups: [""]
    resources: [endpoints, services, pods, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: system:coredns }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:coredns }
subjects: [{ kind: ServiceAccount, name: coredns, namespace: kube-system }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: coredns, namespace: kube-system }
data:
  Corefile: |
    .:53 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: coredns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  replicas: 1
  selector: { matchLabels: { k8s-app: kube-dns } }
  template:
    metadata: { labels: { k8s-app: kube-dns } }
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 }
      containers:
        - name: coredns
          image: $image
          imagePullPolicy: Never
          args: [-conf, /etc/coredns/Corefile]
          ports: [{ containerPort: 53, protocol: UDP, name: dns }, { containerPort: 53, protocol: TCP, name: dns-tcp }]
          readinessProbe: { httpGet: { path: /ready, port: 8181 }, periodSeconds: 2 }
          livenessProbe: { httpGet: { path: /health, port: 8080 }, periodSeconds: 10 }
          volumeMounts: [{ name: config, mountPath: /etc/coredns, readOnly: true }]
          securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: [ALL], add: [NET_BIND_SERVICE] } }
      volumes: [{ name: config, configMap: { name: coredns } }]
---
apiVersion: v1
kind: Service
metadata: { name: kube-dns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  clusterIP: $DNS_IP
  selector: { k8s-app: kube-dns }
  ports:
    - { name: dns, port: 53, targetPort: 53, protocol: UDP }
    - { name: dns-tcp, port: 53, targetPort: 53, protocol: TCP }
EOF
}

# kube-router's firewall on this node: it needs the Node object (it finds its pods by the node's
# address), so it starts once the node is Ready and before any pod runs. No health or metrics port
# (they would listen on every address). It is ready once its default chain exists.
netpol_up() {
  local bin
  bin=$(kube_router_bin)
  [[ -x $bin ]] || die "$bin missing - run: $0 build"
  command -v ipset >/dev/null || die "needs the Debian package ipset (test/infra/ensure-node-tools.sh)"
  # Bridged pod-to-pod frames pass through iptables only with this on (net_up sets it); without it
  # a policy between two pods of the node would be written and never applied.
  [[ $(sysctl -n net.bridge.bridge-nf-call-iptables) == 1 ]] || die "net.bridge.bridge-nf-call-iptables is not 1"
  spawn kube-router "$bin" --kubeconfig "$D/kube/kubeconfig" --hostname-override "$NODE_NAME" \
    --run-firewall=true --run-router=false --run-service-proxy=false --enable-ipv6=false \
    --service-cluster-ip-range "$SERVICE_CIDR" --health-port 0 --metrics-port 0 --v=0
  wait_for 60 "kube-router's firewall chains" iptables -t filter -S KUBE-NWPLCY-DEFAULT
}

node_ready() { [[ $(kctl get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
default_sa() { kctl -n default get serviceaccount default; }
dns_ready() { [[ $(kctl -n kube-system get deploy coredns -o jsonpath='{.status.readyReplicas}') == 1 ]]; }

cmd_start() {
  [[ $(id -u) == 0 ]] || die "needs root (interfaces, iptables, containerd)"
  for f in kube-apiserver etcd kubectl kubelet kube-controller-manager kube-scheduler kube-proxy; do
    [[ -x $BIN/$f ]] || die "$BIN/$f missing - run: $0 build"
  done
  command -v containerd >/dev/null && command -v runc >/dev/null && [[ -x /usr/lib/cni/bridge ]] ||
    die "needs the Debian packages containerd runc containernetworking-plugins (test/infra/ensure-node-tools.sh)"
  mkdir -p "$D/logs" "$D/pids"
  exec 8>"$D/.lock"; flock -n 8 || die "another kube-cluster.sh holds $D/.lock"
  if pid_alive "$D/pids/kubelet.pid"; then log "already running"; print_env; return; fi
  local t0=$SECONDS
  net_up
  api_env
  bash "$here/kube-test-env.sh" start >/dev/null
  log "apiserver ready on https://$NODE_IP:$API_PORT after $((SECONDS - t0))s"
  containerd_up
  import_images
  log "containerd up, images imported after $((SECONDS - t0))s"
  control_up
  kubelet_up
  wait_for 120 "Ready node" node_ready
  log "node $NODE_NAME Ready after $((SECONDS - t0))s"
  netpol_up
  log "NetworkPolicy enforcement (kube-router $KUBE_ROUTER_VERSION) up after $((SECONDS - t0))s"
  wait_for 60 "default ServiceAccount" default_sa
  dns_up
  wait_for 120 "CoreDNS ready" dns_ready
  log "cluster ready (node, controllers, kube-proxy, CoreDNS) after $((SECONDS - t0))s; logs: $D/logs"
  print_env
}

stop_pid() {  # $1 = pid file
  local pid exe i
  pid_alive "$1" || { rm -f "$1"; return 0; }
  read -r pid exe < "$1"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do [[ -d /proc/$pid ]] || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$1"
}

cmd_stop() {
  mkdir -p "$D/pids"
  local name c
  for name in kube-router kubelet kube-proxy scheduler controller-manager; do stop_pid "$D/pids/$name.pid"; done
  if pid_alive "$D/pids/containerd.pid"; then
    # Every container and sandbox: kill the tasks, then let containerd remove them and their mounts.
    for c in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s KILL "$c" >/dev/null 2>&1 || true; done
    sleep 1
    for c in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$c" >/dev/null 2>&1 || true; done
    for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "$c" >/dev/null 2>&1 || true; done
  fi
  stop_pid "$D/pids/containerd.pid"
  pkill -KILL -f "containerd-shim-runc-v2 .*-address $SOCK" 2>/dev/null || true
  [[ -x $BIN/kube-proxy ]] && "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true
  api_env
  bash "$here/kube-test-env.sh" stop >/dev/null 2>&1 || true
  # Mounts under the state dir (pod volumes, overlay rootfs, shm), deepest first.
  { findmnt -rn -o TARGET | grep "^$D/" || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  for n in $(ip netns list 2>/dev/null | awk '$1 ~ /^cni-/ {print $1}'); do
    ip netns pids "$n" 2>/dev/null | grep -q . || ip netns delete "$n" 2>/dev/null || true
  done
  # CNI's iptables chains for our pod range, then our interfaces.
  { iptables -t nat -S 2>/dev/null | grep -E "^-A (POSTROUTING|CNI-HOSTPORT-[A-Z]+|PREROUTING|OUTPUT) .*(CNI|$POD_CIDR)" || true; } |
    sed 's/^-A/-D/' | while read -r rule; do eval iptables -t nat "$rule" 2>/dev/null || true; done
  # What the kubelet made and kube-proxy --cleanup leaves (its canaries, the hint, KUBE-FIREWALL) and
  # kube-router's chains (KUBE-ROUTER-*, KUBE-POD-FW-*, KUBE-NWPLCY-*): first the jumps from the
  # built-in chains (kube-router's carry a comment), then flush every KUBE-* chain, then delete them
  # (a chain still jumped to by another cannot be deleted, hence two passes).
  local cmd table chain chains set
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in filter nat mangle; do
      { "$cmd" -t "$table" -S 2>/dev/null | grep -E '^-A [A-Z]+ .*-j KUBE-' || true; } | sed 's/^-A/-D/' |
        while read -r rule; do eval "$cmd" -t "$table" "$rule" 2>/dev/null || true; done
      chains=$("$cmd" -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}')
      for chain in $chains; do "$cmd" -t "$table" -F "$chain" 2>/dev/null || true; done
      for chain in $chains; do "$cmd" -t "$table" -X "$chain" 2>/dev/null || true; done
    done
  done
  # kube-router's ipsets (the policies' pod and CIDR sets), once no rule refers to them.
  if command -v ipset >/dev/null; then
    for set in $(ipset list -n 2>/dev/null | grep -E '^(inet6:)?(KUBE-(SRC|DST)-|kube-router-)' || true); do
      ipset destroy "$set" 2>/dev/null || true
    done
  fi
  ip link del "$POD_BRIDGE" 2>/dev/null || true
  ip link del "$NODE_IF" 2>/dev/null || true
  rm -rf "$D"
  log "stopped and removed $D"
}

cmd_status() {
  local name
  for name in containerd kubelet kube-proxy kube-router scheduler controller-manager; do
    if pid_alive "$D/pids/$name.pid"; then echo "$name: running"; else echo "$name: stopped"; fi
  done
}

case ${1:-} in
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) print_env ;;
  status) cmd_status ;;
  import) shift; cmd_import "$@" ;;
  *) echo "usage: $0 build|start|stop|env|status|import ARCHIVE NAME   (env: AGW_CLUSTER_DIR AGW_CLUSTER_CACHE KUBE_TEST_BIN)" >&2; exit 2 ;;
esac
