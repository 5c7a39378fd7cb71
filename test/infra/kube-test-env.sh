#!/usr/bin/env bash
# kube-test-env.sh - a throwaway kube-apiserver + etcd on loopback for Agent Gateway's integration
# tests, built from the Go module proxy (no Docker, no kind, no dl.k8s.io / GitHub downloads).
# Adapted from ../shared/k8s/kube-test-env.sh; the test suite starts it from test/infra/kube-global-setup.ts
# with its own KUBE_TEST_DIR and free ports, so a developer's own env is never touched.
#
#   kube-test-env.sh build   # idempotent; binaries cached in $KUBE_TEST_BIN (default ~/.cache/kube-test-env)
#   kube-test-env.sh build-node   # + kubelet, kube-controller-manager, kube-scheduler, kube-proxy (kube-cluster.sh)
#   eval "$(kube-test-env.sh start)"   # prints: export KUBECONFIG=... (and PATH for the cached kubectl/helm)
#   kube-test-env.sh stop    # kills only the PIDs recorded by `start`
#   kube-test-env.sh env     # re-print the exports of a running env
#
# Needs: go (>= 1.24; tested with 1.26.8), openssl, curl. No controller-manager/scheduler/kubelet:
# no ownerReference garbage collection, namespaces never finish deleting, no pods run.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.34.4}          # k8s.io/kubernetes tag (staging modules = v0.<minor>.<patch>)
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}          # go.etcd.io/etcd/server/v3 tag
HELM_VERSION=${HELM_VERSION:-v4.3.1}           # helm.sh/helm/v4 (or v3.x.y); "none" = skip
KUBE_TEST_KUBECTL=${KUBE_TEST_KUBECTL:-1}      # 1 = also build a matching kubectl, 0 = skip
KUBE_TEST_BIN=${KUBE_TEST_BIN:-$HOME/.cache/kube-test-env}
KUBE_TEST_DIR=${KUBE_TEST_DIR:-${TMPDIR:-/tmp}/kube-test-env-$(id -u)}
KUBE_TEST_PORT=${KUBE_TEST_PORT:-18543}        # apiserver https port (127.0.0.1)
KUBE_TEST_ETCD_PORT=${KUBE_TEST_ETCD_PORT:-18579}
KUBE_TEST_ETCD_PEER_PORT=${KUBE_TEST_ETCD_PEER_PORT:-18580}
KUBE_TEST_TIMEOUT=${KUBE_TEST_TIMEOUT:-120}    # seconds to wait for /readyz
# A cluster with a node (test/infra/kube-cluster.sh) binds the apiserver to the node's own address so
# pods reach it through the `kubernetes` Service, turns on ServiceAccount admission and the endpoint
# reconciler, and gives the serving certificate the Service names and addresses.
KUBE_TEST_BIND=${KUBE_TEST_BIND:-127.0.0.1}
KUBE_TEST_SERVICE_CIDR=${KUBE_TEST_SERVICE_CIDR:-10.0.0.0/24}
KUBE_TEST_SERVICE_IP=${KUBE_TEST_SERVICE_IP:-10.0.0.1}     # first address of the Service range
KUBE_TEST_NODE_MODE=${KUBE_TEST_NODE_MODE:-0}

log() { printf '[kube-test-env] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

go_env() {
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
}

apiserver_bin() { echo "$KUBE_TEST_BIN/kube-apiserver-$KUBE_VERSION"; }
kubectl_bin()   { echo "$KUBE_TEST_BIN/kubectl-$KUBE_VERSION"; }
etcd_bin()      { echo "$KUBE_TEST_BIN/etcd-$ETCD_VERSION"; }
helm_bin()      { echo "$KUBE_TEST_BIN/helm-$HELM_VERSION"; }

build_kube() {  # kube-apiserver (+kubectl) via a wrapper module that pins the staging modules
  local want_kubectl=$KUBE_TEST_KUBECTL
  [[ -x $(apiserver_bin) ]] && { [[ $want_kubectl != 1 ]] || [[ -x $(kubectl_bin) ]]; } &&
    { log "cached: $(apiserver_bin)"; return; }
  local t0=$SECONDS w=$KUBE_TEST_BIN/src/kube-$KUBE_VERSION
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local sv=v0.${KUBE_VERSION#v1.}
  mkdir -p "$w"
  local gomod
  gomod=$(cd "$w" && go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [[ -f $gomod ]] || die "could not download k8s.io/kubernetes@$KUBE_VERSION"
  {
    echo "module local.invalid/kube-apiserver-build"; echo
    grep -E '^(go|godebug) ' "$gomod"; echo           # a dependency's go/godebug lines are ignored: restate them
    echo "tool k8s.io/kubernetes/cmd/kube-apiserver"
    [[ $want_kubectl == 1 ]] && echo "tool k8s.io/kubernetes/cmd/kubectl"
    echo; echo "require k8s.io/kubernetes $KUBE_VERSION"; echo
    echo "replace ("   # dependency replace lines are ignored: pin every ./staging module to its real tag
    grep -oE '^[[:space:]]*k8s\.io/[a-z0-9-]+ => \./staging' "$gomod" | awk -v sv="$sv" '{print "\t"$1" => "$1" "sv}'
    echo ")"
  } > "$w/go.mod"
  (cd "$w" && go mod tidy)
  if (cd "$w" && go list -m all | grep -E ' v0\.0\.0$'); then die "unresolved v0.0.0 staging modules (list drifted?)"; fi
  local ld="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld+=" -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$w" && go build -trimpath -ldflags "$ld" -o "$(apiserver_bin).tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv -f "$(apiserver_bin).tmp" "$(apiserver_bin)"
  log "built $("$(apiserver_bin)" --version) in $((SECONDS - t0))s"
  if [[ $want_kubectl == 1 ]]; then
    t0=$SECONDS
    (cd "$w" && go build -trimpath -ldflags "$ld" -o "$(kubectl_bin).tmp" k8s.io/kubernetes/cmd/kubectl)
    mv -f "$(kubectl_bin).tmp" "$(kubectl_bin)"
    log "built kubectl $KUBE_VERSION in $((SECONDS - t0))s"
  fi
}

build_etcd() {  # etcd server: its go.mod has ../api replaces, so `go install ...@v` refuses; use a wrapper
  [[ -x $(etcd_bin) ]] && { log "cached: $(etcd_bin)"; return; }
  local t0=$SECONDS w=$KUBE_TEST_BIN/src/etcd-$ETCD_VERSION
  mkdir -p "$w"
  local gomod
  gomod=$(cd "$w" && go mod download -json "go.etcd.io/etcd/server/v3@$ETCD_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [[ -f $gomod ]] || die "could not download go.etcd.io/etcd/server/v3@$ETCD_VERSION"
  { echo "module local.invalid/etcd-build"; echo; grep -E '^go ' "$gomod"; echo
    echo "tool go.etcd.io/etcd/server/v3"; echo; echo "require go.etcd.io/etcd/server/v3 $ETCD_VERSION"; } > "$w/go.mod"
  (cd "$w" && go mod tidy && go build -trimpath -ldflags "-s -w" -o "$(etcd_bin).tmp" go.etcd.io/etcd/server/v3)
  mv -f "$(etcd_bin).tmp" "$(etcd_bin)"
  log "built etcd $ETCD_VERSION in $((SECONDS - t0))s"
}

build_helm() {  # helm's go.mod has no replace lines, so plain `go install pkg@version` works
  [[ $HELM_VERSION == none ]] && return
  [[ -x $(helm_bin) ]] && { log "cached: $(helm_bin)"; return; }
  local t0=$SECONDS major=${HELM_VERSION%%.*} gobin=$KUBE_TEST_BIN/src/helm-$HELM_VERSION
  mkdir -p "$gobin"
  GOBIN=$gobin go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/$major/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/$major/cmd/helm@$HELM_VERSION"
  mv -f "$gobin/helm" "$(helm_bin)"
  log "built helm $HELM_VERSION in $((SECONDS - t0))s"
}

# The node's parts (test/infra/kube-cluster.sh) from the same wrapper module and ldflags as the apiserver;
# with the apiserver's Go build cache warm they share most packages.
NODE_BINS=(kubelet kube-controller-manager kube-scheduler kube-proxy)
build_node() {
  local name t0 w=$KUBE_TEST_BIN/src/kube-$KUBE_VERSION minor=${KUBE_VERSION#v1.} ld="-s -w" p
  minor=${minor%%.*}
  [[ -f $w/go.mod ]] || die "build the apiserver first (its wrapper module is in $w)"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld+=" -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  for name in "${NODE_BINS[@]}"; do
    local out=$KUBE_TEST_BIN/$name-$KUBE_VERSION
    [[ -x $out ]] && { log "cached: $out"; continue; }
    t0=$SECONDS
    (cd "$w" && go build -trimpath -ldflags "$ld" -o "$out.tmp" "k8s.io/kubernetes/cmd/$name")
    mv -f "$out.tmp" "$out"
    log "built $name $KUBE_VERSION in $((SECONDS - t0))s"
  done
  mkdir -p "$KUBE_TEST_BIN/bin"
  for name in "${NODE_BINS[@]}"; do ln -sfn "$KUBE_TEST_BIN/$name-$KUBE_VERSION" "$KUBE_TEST_BIN/bin/$name"; done
}

link_bins() {
  mkdir -p "$KUBE_TEST_BIN/bin"
  ln -sfn "$(apiserver_bin)" "$KUBE_TEST_BIN/bin/kube-apiserver"
  ln -sfn "$(etcd_bin)" "$KUBE_TEST_BIN/bin/etcd"
  [[ -x $(kubectl_bin) ]] && ln -sfn "$(kubectl_bin)" "$KUBE_TEST_BIN/bin/kubectl"
  [[ $HELM_VERSION != none && -x $(helm_bin) ]] && ln -sfn "$(helm_bin)" "$KUBE_TEST_BIN/bin/helm"
  return 0
}

cmd_build() {
  command -v go >/dev/null || die "go not found"
  mkdir -p "$KUBE_TEST_BIN"; go_env
  exec 9>"$KUBE_TEST_BIN/.lock"; flock 9   # parallel CI jobs sharing the cache build once
  build_kube; build_etcd; build_helm; link_bins
  ls -l "$KUBE_TEST_BIN/bin/" >&2
}

pid_alive() {  # $1 = pid file; alive only if the pid still runs the binary we started
  local f=$1 pid exe
  [[ -f $f ]] || return 1
  read -r pid exe < "$f" || return 1
  [[ -n $pid && -d /proc/$pid ]] || return 1
  [[ $(readlink -f "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$exe")" ]]
}

print_env() {
  echo "export KUBECONFIG=$KUBE_TEST_DIR/kubeconfig"
  echo "export PATH=$KUBE_TEST_BIN/bin:\$PATH"
}

gen_pki() {  # self-signed CA, serving cert for 127.0.0.1/localhost, admin client cert, SA key pair, token
  local d=$KUBE_TEST_DIR/pki
  [[ -f $d/done ]] && return
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=kube-test-ca \
      -keyout ca.key -out ca.crt 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:%s,IP:%s\nextendedKeyUsage=serverAuth\n' \
      "$KUBE_TEST_SERVICE_IP" "$KUBE_TEST_BIND" > srv.ext
    openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver -keyout srv.key -out srv.csr 2>/dev/null
    openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile srv.ext -out srv.crt 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' > admin.ext
    openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=kube-test-admin" -keyout admin.key -out admin.csr 2>/dev/null
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile admin.ext -out admin.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    tok=$(openssl rand -hex 16)
    # token,user,uid,"group1,group2" ; a second, unprivileged user for RBAC tests
    printf '%s,kube-test-admin,uid-admin,"system:masters"\n%s,kube-test-user,uid-user\n' "$tok" "$(openssl rand -hex 16)" > tokens.csv
    chmod 600 ./*.key tokens.csv
    touch done
  )
}

write_kubeconfig() {
  local d=$KUBE_TEST_DIR/pki tok b64="base64 -w0"
  tok=$(head -1 "$d/tokens.csv" | cut -d, -f1)
  cat > "$KUBE_TEST_DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube-test
  cluster:
    server: https://$KUBE_TEST_BIND:$KUBE_TEST_PORT
    certificate-authority-data: $($b64 < "$d/ca.crt")
users:
- name: kube-test-admin
  user:
    token: $tok
- name: kube-test-admin-cert
  user:
    client-certificate-data: $($b64 < "$d/admin.crt")
    client-key-data: $($b64 < "$d/admin.key")
contexts:
- name: kube-test
  context: {cluster: kube-test, user: kube-test-admin, namespace: default}
- name: kube-test-cert
  context: {cluster: kube-test, user: kube-test-admin-cert, namespace: default}
current-context: kube-test
EOF
  chmod 600 "$KUBE_TEST_DIR/kubeconfig"
}

launch_apiserver() {  # starts kube-apiserver against the running etcd and waits for /readyz
  local api d=$KUBE_TEST_DIR i
  api=$(apiserver_bin)
  local p=$d/pki mode_args
  if [[ $KUBE_TEST_NODE_MODE == 1 ]]; then
    mode_args=(--kubelet-preferred-address-types=InternalIP --endpoint-reconciler-type=lease)
  else
    mode_args=(--disable-admission-plugins=ServiceAccount --endpoint-reconciler-type=none)
  fi
  setsid "$api" \
    --etcd-servers="http://127.0.0.1:$KUBE_TEST_ETCD_PORT" \
    --bind-address="$KUBE_TEST_BIND" --advertise-address="$KUBE_TEST_BIND" --secure-port="$KUBE_TEST_PORT" \
    --cert-dir="$d/apiserver-certs" --tls-cert-file="$p/srv.crt" --tls-private-key-file="$p/srv.key" \
    --client-ca-file="$p/ca.crt" --token-auth-file="$p/tokens.csv" \
    --authorization-mode=RBAC \
    --service-cluster-ip-range="$KUBE_TEST_SERVICE_CIDR" --allow-privileged=true "${mode_args[@]}" \
    --service-account-issuer="https://$KUBE_TEST_BIND:$KUBE_TEST_PORT" \
    --service-account-key-file="$p/sa.pub" --service-account-signing-key-file="$p/sa.key" \
    --profiling=false --v=0 ${KUBE_TEST_APISERVER_ARGS:-} > "$d/apiserver.log" 2>&1 < /dev/null &
  echo "$! $api" > "$d/apiserver.pid"
  local tok; tok=$(head -1 "$p/tokens.csv" | cut -d, -f1)
  for ((i = 0; i < KUBE_TEST_TIMEOUT * 4; i++)); do
    [[ $(curl -s --cacert "$p/ca.crt" -H "Authorization: Bearer $tok" \
      "https://$KUBE_TEST_BIND:$KUBE_TEST_PORT/readyz" 2>/dev/null) == ok ]] && break
    pid_alive "$d/apiserver.pid" || { tail -30 "$d/apiserver.log" >&2; die "kube-apiserver exited"; }
    sleep 0.25
  done
  ((i < KUBE_TEST_TIMEOUT * 4)) || { tail -30 "$d/apiserver.log" >&2; die "no /readyz after ${KUBE_TEST_TIMEOUT}s"; }
}

cmd_start() {
  local api etcd d=$KUBE_TEST_DIR t0=$SECONDS
  api=$(apiserver_bin); etcd=$(etcd_bin)
  [[ -x $api && -x $etcd ]] || die "binaries missing in $KUBE_TEST_BIN - run: $0 build"
  mkdir -p "$d"
  if pid_alive "$d/apiserver.pid" && pid_alive "$d/etcd.pid"; then log "already running"; print_env; return; fi
  pid_alive "$d/apiserver.pid" || pid_alive "$d/etcd.pid" && die "half-running env in $d - run: $0 stop"
  gen_pki; write_kubeconfig
  log "pki + kubeconfig ready after $((SECONDS - t0))s"
  rm -rf "$d/etcd-data"   # fresh state every start
  setsid "$etcd" --name kube-test --data-dir "$d/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$KUBE_TEST_ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$KUBE_TEST_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$KUBE_TEST_ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$KUBE_TEST_ETCD_PEER_PORT" \
    --initial-cluster "kube-test=http://127.0.0.1:$KUBE_TEST_ETCD_PEER_PORT" \
    --unsafe-no-fsync --log-level=warn > "$d/etcd.log" 2>&1 < /dev/null &
  echo "$! $etcd" > "$d/etcd.pid"
  local i
  for ((i = 0; i < 100; i++)); do
    curl -sf "http://127.0.0.1:$KUBE_TEST_ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"' && break
    pid_alive "$d/etcd.pid" || { tail -20 "$d/etcd.log" >&2; die "etcd exited"; }
    sleep 0.2
  done
  log "etcd healthy after $((SECONDS - t0))s"
  launch_apiserver
  log "kube-apiserver $KUBE_VERSION ready on https://$KUBE_TEST_BIND:$KUBE_TEST_PORT after $((SECONDS - t0))s (logs: $d)"
  print_env
}

stop_one() {  # $1 = pid file
  local f=$1 pid exe i
  [[ -f $f ]] || return 0
  read -r pid exe < "$f" || true
  if pid_alive "$f"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do [[ -d /proc/$pid ]] || break; sleep 0.2; done
    [[ -d /proc/$pid ]] && kill -KILL "$pid" 2>/dev/null || true
    log "stopped $(basename "$exe") (pid $pid)"
  fi
  rm -f "$f"
}

# Outage drills: stop and start only the apiserver; etcd (and so every object) stays.
cmd_apiserver_stop() { stop_one "$KUBE_TEST_DIR/apiserver.pid"; }
cmd_apiserver_start() {
  pid_alive "$KUBE_TEST_DIR/etcd.pid" || die "etcd is not running in $KUBE_TEST_DIR"
  pid_alive "$KUBE_TEST_DIR/apiserver.pid" && { log "apiserver already running"; return; }
  local t0=$SECONDS
  launch_apiserver
  log "kube-apiserver back after $((SECONDS - t0))s"
}

cmd_stop() {
  stop_one "$KUBE_TEST_DIR/apiserver.pid"
  stop_one "$KUBE_TEST_DIR/etcd.pid"
  rm -rf "$KUBE_TEST_DIR/etcd-data"
}

cmd_build_node() {
  command -v go >/dev/null || die "go not found"
  mkdir -p "$KUBE_TEST_BIN"; go_env
  exec 9>"$KUBE_TEST_BIN/.lock"; flock 9
  build_kube; build_node
}

case ${1:-} in
  build) cmd_build ;;
  build-node) cmd_build_node ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) print_env ;;
  apiserver-stop) cmd_apiserver_stop ;;
  apiserver-start) cmd_apiserver_start ;;
  *) echo "usage: $0 build|build-node|start|stop|env|apiserver-stop|apiserver-start   (env vars: KUBE_VERSION ETCD_VERSION HELM_VERSION KUBE_TEST_BIN KUBE_TEST_DIR KUBE_TEST_PORT ...)" >&2; exit 2 ;;
esac
