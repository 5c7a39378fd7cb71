#!/usr/bin/env bash
# cluster-images.sh - builds the container images the one-node test cluster of issue 21 runs, as OCI
# archives, without a daemon and without a registry (none is reachable here): each image is a root
# file system assembled by hand, committed with buildah (vfs storage, chroot isolation) the way
# image/build.sh builds the gateway's image, and written with `buildah push oci-archive:`.
#
#   bash test/infra/cluster-images.sh [--import SOCK] [OUT_DIR]
#       OUT_DIR defaults to ${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}/images.
#       Prints the archive paths, one a line; progress goes to stderr.
#
#   pause.oci.tar     localhost/agw-pause:1          test/infra/images/pause (static Go, PID 1 of a
#                                                    pod: blocks, reaps zombies, exits 0 on TERM/INT)
#   coredns.oci.tar   localhost/agw-coredns:1.12.4   CoreDNS from the Go module proxy, uid 65532 with
#                                                    cap_net_bind_service on /coredns (as upstream's)
#   redis.oci.tar     localhost/agw-redis:<deb>      Debian's redis-server, uid 65532, /data, no
#                                                    persistence, listens on 0.0.0.0:6379
#   postgres.oci.tar  localhost/agw-postgres:<deb>   Debian's PostgreSQL 15, uid 65532; env
#                                                    POSTGRES_USER/PASSWORD/DB, PGDATA, PGPORT; see
#                                                    test/infra/images/postgres/entrypoint.sh
#   (<deb> is the Debian package version with the epoch dropped and ~ + as _, e.g. 7.0.15-1_deb12u10.)
#
# Importing into the cluster's containerd (1.6, checked with ctr 1.6.20): the archive's index
# carries the full name in org.opencontainers.image.ref.name (pushed as oci-archive:FILE:NAME), so
#   ctr --address SOCK -n k8s.io images import --base-name localhost/agw-pause OUT_DIR/pause.oci.tar
# names the image localhost/agw-pause:1 (likewise agw-coredns, agw-redis, agw-postgres), and the
# CRI plugin lists it at once (label io.cri-containerd.image=managed). Without --base-name the name
# is the same; --base-name only filters, and a prefix that does not match imports nothing with exit
# status 0. Had the annotation held only the tag (oci-archive:FILE:1), ctr would name the image
# "import-<date>:1" without --base-name and localhost/agw-pause:1 with it. `--import SOCK` runs
# these four imports after building. ctr unpacks into containerd's default snapshotter
# (overlayfs); a cluster whose CRI uses another needs --snapshotter NAME on the import.
#
# Cached: an archive is rebuilt only when its stamp (a hash of this script and test/infra/images,
# plus the Go, CoreDNS and Debian package versions) changes; the CoreDNS binary is kept under the
# cache dir by version (a cold build takes minutes). Runs as root on Debian and installs what is
# missing with apt-get (buildah etc. through ensure-image-tools.sh, redis-server through
# ensure-redis.sh, postgresql-15, libcap2-bin); needs go (>= 1.24). One run at a time (flock), so
# at most one Go build. test/infra/images/verify-images.sh runs each archive with runc and checks it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}
COREDNS_VERSION=${COREDNS_VERSION:-v1.12.4}
PG_MAJOR=15
PAUSE_TAG=1
import_sock=
if [[ ${1:-} == --import ]]; then
  import_sock=${2:?--import needs the containerd socket}
  shift 2
fi
OUT=${1:-$CACHE/images}
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
export CGO_ENABLED=0 GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOFLAGS="-mod=mod -buildvcs=false"

log() { printf '[cluster-images] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

apt_install() {
  log "installing $* (Debian packages)"
  # Other jobs on the machine may hold apt's locks: wait for them rather than fail.
  apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 "$@" >/dev/null
}

ensure_tools() {
  bash "$here/ensure-image-tools.sh"
  bash "$here/ensure-redis.sh"
  [[ -x /usr/lib/postgresql/$PG_MAJOR/bin/initdb ]] || apt_install "postgresql-$PG_MAJOR"
  command -v setcap >/dev/null || apt_install libcap2-bin
  command -v go >/dev/null || die "go not found (needs >= 1.24)"
}

# Debian version as an image tag: no epoch, and ~ + (not allowed in tags) as _.
deb_tag() { dpkg-query -W -f='${Version}' "$1" | sed -e 's/^[0-9]*://' -e 's/[~+]/_/g'; }

work=
cid=
cleanup() {
  [[ -n $cid ]] && buildah rm "$cid" >/dev/null 2>&1
  [[ -n $work ]] && rm -rf "$work"
  return 0
}
trap cleanup EXIT

# --- root file system helpers -------------------------------------------------------------------

# put ROOT FILE: copies a host file to the same path in ROOT, following symlinks, with its
# directory resolved (/lib64/ld-linux-x86-64.so.2 lands in usr/lib64, as on a merged-/usr host).
put() {
  local dir
  dir=$(readlink -f "$(dirname "$2")")
  mkdir -p "$1$dir"
  cp -L --preserve=mode,timestamps "$2" "$1$dir/$(basename "$2")"
}

# put_elf ROOT FILE...: the files plus exactly the shared libraries ldd lists and the loader.
put_elf() {
  local root=$1 f lib libs
  shift
  for f; do put "$root" "$f"; done
  libs=$(ldd "$@") || die "ldd failed on $*"
  grep -q 'not found' <<<"$libs" && die "missing libraries: $(grep 'not found' <<<"$libs")"
  for lib in $(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(0x/ {print $1}' <<<"$libs" | sort -u); do
    put "$root" "$lib"
  done
}

# skeleton ROOT: merged-/usr links, a root and a nonroot (65532) user, /tmp.
skeleton() {
  mkdir -p "$1"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,tmp}
  ln -s usr/bin "$1/bin"
  ln -s usr/sbin "$1/sbin"
  ln -s usr/lib "$1/lib"
  ln -s usr/lib64 "$1/lib64"
  chmod 1777 "$1/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$1/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$1/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$1/etc/nsswitch.conf"
}

# commit NAME ROOT ARCHIVE CONFIG_ARGS...: the image/build.sh way: scratch container, rootfs copied
# through a mount (cp -a keeps owners, modes and the capability xattr), config, commit, push to an
# oci-archive under the full name, then the image leaves buildah's local storage.
commit() {
  local name=$1 root=$2 archive=$3 mnt
  shift 3
  cid=$(buildah from scratch)
  mnt=$(buildah mount "$cid")
  cp -a "$root/." "$mnt/"
  buildah umount "$cid" >/dev/null
  buildah config --label org.opencontainers.image.title="${name%%:*}" "$@" "$cid"
  buildah commit --quiet --rm "$cid" "$name" >/dev/null
  cid=
  rm -f "$archive.tmp"
  buildah push --quiet "$name" "oci-archive:$archive.tmp:$name" >/dev/null
  buildah rmi "$name" >/dev/null
  mv -f "$archive.tmp" "$archive"
  log "$name: $(du -sh "$root" | cut -f1) unpacked, $(du -h "$archive" | cut -f1) archive"
}

# --- images ---------------------------------------------------------------------------------------

build_pause() {
  local root=$work/pause
  mkdir -p "$root"
  (cd "$here/images/pause" && go build -trimpath -ldflags "-s -w" -o "$root/pause" .)
  commit "localhost/agw-pause:$PAUSE_TAG" "$root" "$OUT/pause.oci.tar" \
    --user 65535:65535 --entrypoint '["/pause"]' --cmd '[]'
}

# The wrapper module builds CoreDNS's main package as a tool of a module of ours (as
# kube-test-env.sh builds kube-apiserver); `go install …@version` would do too, but this keeps the
# module's go line and the downloaded sources next to the binary.
coredns_bin() { echo "$CACHE/bin/coredns-$COREDNS_VERSION"; }
build_coredns_binary() {
  [[ -x $(coredns_bin) ]] && return
  local t0=$SECONDS w=$CACHE/src/coredns-$COREDNS_VERSION gomod
  log "building CoreDNS $COREDNS_VERSION from the Go module proxy (takes minutes)"
  mkdir -p "$w" "$CACHE/bin"
  gomod=$(cd "$w" && go mod download -json "github.com/coredns/coredns@$COREDNS_VERSION" |
    sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [[ -f $gomod ]] || die "could not download github.com/coredns/coredns@$COREDNS_VERSION"
  {
    echo "module local.invalid/agw-coredns-build"; echo
    grep -E '^(go|godebug) ' "$gomod"; echo
    echo "tool github.com/coredns/coredns"; echo
    echo "require github.com/coredns/coredns $COREDNS_VERSION"
  } >"$w/go.mod"
  # Quiet unless it fails: the module download lines go to a log shown on failure.
  if ! (cd "$w" && go mod tidy && nice go build -trimpath \
    -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION" \
    -o "$(coredns_bin).tmp" github.com/coredns/coredns) >"$w/build.log" 2>&1; then
    tail -n 30 "$w/build.log" >&2
    die "CoreDNS build failed (log: $w/build.log)"
  fi
  mv -f "$(coredns_bin).tmp" "$(coredns_bin)"
  log "built CoreDNS $COREDNS_VERSION in $((SECONDS - t0))s (cold build, cached as $(coredns_bin))"
}

build_coredns() {
  local root=$work/coredns
  build_coredns_binary
  mkdir -p "$root/etc/ssl/certs"
  cp "$(coredns_bin)" "$root/coredns"
  # Port 53 as uid 65532: the file capability, as in upstream's image (needs NET_BIND_SERVICE in
  # the container's bounding set, which the default set has).
  setcap cap_net_bind_service=+ep "$root/coredns"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  commit "localhost/agw-coredns:${COREDNS_VERSION#v}" "$root" "$OUT/coredns.oci.tar" \
    --user 65532:65532 --entrypoint '["/coredns"]' --cmd '[]' \
    --port 53/udp --port 53/tcp --port 9153/tcp
}

build_redis() {
  local root=$work/redis
  skeleton "$root"
  # /usr/bin/redis-server is a link to redis-check-rdb; copied as redis-server, argv[0] picks the
  # server.
  put_elf "$root" /usr/bin/redis-server
  mkdir -p "$root/data"
  chown 65532:65532 "$root/data"
  commit "localhost/agw-redis:$(deb_tag redis-server)" "$root" "$OUT/redis.oci.tar" \
    --user 65532:65532 --workingdir /data --port 6379/tcp \
    --entrypoint '["/usr/bin/redis-server"]' \
    --cmd '["--bind","0.0.0.0","--protected-mode","no","--save","","--appendonly","no"]'
}

build_postgres() {
  local root=$work/postgres pg=/usr/lib/postgresql/$PG_MAJOR so mods=()
  skeleton "$root"
  # Loadable modules (plpgsql and the snowball dictionaries are needed by initdb, the encoding
  # conversions on demand; contrib is small) but not the LLVM JIT (libLLVM alone is ~100 MB;
  # without it jit is simply unavailable) nor sepgsql (SELinux).
  for so in "$pg"/lib/*.so; do
    case ${so##*/} in llvmjit.so | sepgsql.so) ;; *) mods+=("$so") ;; esac
  done
  put_elf "$root" "$pg"/bin/{postgres,initdb,pg_ctl,pg_isready} /bin/dash /bin/rm "${mods[@]}"
  ln -s dash "$root/usr/bin/sh"
  mkdir -p "$root/usr/share/postgresql"
  cp -a "/usr/share/postgresql/$PG_MAJOR" "$root/usr/share/postgresql/"
  rm -rf "$root/usr/share/postgresql/$PG_MAJOR/man"
  # Debian's build reads time zones from the system tzdata.
  mkdir -p "$root/usr/share/zoneinfo"
  cp -a /usr/share/zoneinfo/. "$root/usr/share/zoneinfo/"
  rm -rf "$root/usr/share/zoneinfo/right"
  install -D -m 0755 "$here/images/postgres/entrypoint.sh" "$root/usr/local/bin/agw-postgres-entrypoint"
  mkdir -p "$root/var/lib/postgresql" "$root/var/run/postgresql"
  chown 65532:65532 "$root/var/lib/postgresql" "$root/var/run/postgresql"
  chmod 2775 "$root/var/run/postgresql"
  commit "localhost/agw-postgres:$(deb_tag "postgresql-$PG_MAJOR")" "$root" "$OUT/postgres.oci.tar" \
    --user 65532:65532 --workingdir /var/lib/postgresql --port 5432/tcp --stop-signal SIGINT \
    --env PATH=/usr/local/bin:$pg/bin:/usr/bin \
    --env PGDATA=/var/lib/postgresql/data --env TZ=UTC \
    --entrypoint '["/usr/local/bin/agw-postgres-entrypoint"]' --cmd '[]'
}

# --- cache ----------------------------------------------------------------------------------------

sources_hash() {
  (cd "$here" && find cluster-images.sh images -type f ! -name verify-images.sh -print0 | sort -z | xargs -0 sha256sum) |
    sha256sum | cut -c1-16
}

# stamp NAME: what an archive was built from; a mismatch means rebuild.
stamp() {
  local go
  go=$(go env GOVERSION)
  case $1 in
    pause) echo "sources=$srcs go=$go tag=$PAUSE_TAG" ;;
    coredns) echo "sources=$srcs go=$go coredns=$COREDNS_VERSION" ;;
    redis) echo "sources=$srcs redis=$(dpkg-query -W -f='${Version}' redis-server)" ;;
    postgres) echo "sources=$srcs postgres=$(dpkg-query -W -f='${Version}' "postgresql-$PG_MAJOR")" ;;
  esac
}

# A --base-name that does not match imports nothing and still exits 0, so each name is checked.
import_all() {
  local name ref listed
  for name in pause coredns redis postgres; do
    ref=$(tar -xOf "$OUT/$name.oci.tar" index.json |
      sed -n 's/.*"org.opencontainers.image.ref.name":"\([^"]*\)".*/\1/p')
    log "importing $ref into $import_sock (namespace k8s.io)"
    ctr --address "$import_sock" -n k8s.io images import --base-name "${ref%:*}" "$OUT/$name.oci.tar" >/dev/null
    # Read whole first: under pipefail an early-exiting grep -q can fail the pipeline (SIGPIPE).
    listed=$(ctr --address "$import_sock" -n k8s.io images ls -q)
    grep -qxF "$ref" <<<"$listed" || die "$ref missing after the import"
  done
}

main() {
  local t0=$SECONDS name t
  [[ $(id -u) == 0 ]] || die "run as root (buildah's vfs storage is /var/lib/containers)"
  mkdir -p "$OUT" "$CACHE"
  OUT=$(cd "$OUT" && pwd)
  exec 9>"$CACHE/.cluster-images.lock"
  flock 9
  ensure_tools
  srcs=$(sources_hash)
  for name in pause coredns redis postgres; do
    if [[ -f $OUT/$name.oci.tar && -f $OUT/$name.stamp && $(<"$OUT/$name.stamp") == "$(stamp "$name")" ]]; then
      log "cached: $OUT/$name.oci.tar"
    else
      t=$SECONDS
      log "building $name"
      work=$(mktemp -d)
      rm -f "$OUT/$name.stamp"
      "build_$name"
      stamp "$name" >"$OUT/$name.stamp"
      rm -rf "$work"
      work=
      log "$name done in $((SECONDS - t))s"
    fi
  done
  [[ -z $import_sock ]] || import_all
  for name in pause coredns redis postgres; do echo "$OUT/$name.oci.tar"; done
  log "total $((SECONDS - t0))s"
}

main
