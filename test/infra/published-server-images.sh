#!/usr/bin/env bash
# published-server-images.sh - builds container images of PUBLISHED MCP servers, unmodified, for the
# pod tests of McpSource spec.run (issue 40, test/e2e/cluster/published-servers-on-a-node.test.ts),
# as OCI archives, without a daemon or a registry: each root file system is assembled by hand and
# committed with buildah (vfs, chroot), as test/infra/cluster-images.sh does. No bridge inside: the
# operator injects it (an init container for stdio, a proxy sidecar for HTTP).
#
#   bash test/infra/published-server-images.sh [OUT_DIR]
#       OUT_DIR defaults to ${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}/published-images.
#       Prints "ARCHIVE NAME" per image, one a line; progress goes to stderr.
#
#   mcp-memory.oci.tar      localhost/agw-mcp-memory:2026.8.31       npm @modelcontextprotocol/server-memory
#                           (stdio; `mcp-server-memory` on PATH; writes MEMORY_FILE_PATH, give /tmp/…)
#   mcp-time.oci.tar        localhost/agw-mcp-time:2026.10.19        PyPI mcp-server-time (stdio;
#                           `mcp-server-time` on PATH) on Debian's python3.11
#   mcp-everything.oci.tar  localhost/agw-mcp-everything:2026.8.31   npm @modelcontextprotocol/server-
#                           everything; entrypoint+cmd serve Streamable HTTP on 0.0.0.0:$PORT (3001)
#
# Pinned: the npm servers by package.json + package-lock.json (integrity hashes; `npm ci`) under
# published-servers/{memory,everything}, the PyPI server by published-servers/time/requirements.txt
# (every package at an exact version with its sha256, installed --require-hashes --no-deps). Node is
# the repository's (npm package `node`, image/node-base.sh, shared with image/build.sh); Python is
# Debian's python3.11 with the shared libraries ldd lists for it and its extension modules.
#
# Every image runs as uid 65532 with a read-only root file system: nothing is written outside /tmp
# (the operator mounts an emptyDir there), HOME=/tmp, PYTHONDONTWRITEBYTECODE=1, npm's cache unused.
#
# Cached by content: an archive is rebuilt only when its stamp (a hash of this script,
# image/node-base.sh and published-servers/, the Node version, the versions of the Debian packages
# the files come from) changes. A cold build of the three took 40 to 75 s here on two cores (npm ci
# and pip downloads, buildah commit with vfs); cached, well under a second. published-servers/verify.sh runs each archive with runc and checks it.
# Runs as root on Debian; buildah etc. through ensure-image-tools.sh, python3.11(-venv) with apt-get.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CACHE=${AGW_CLUSTER_CACHE:-$HOME/.cache/agw-cluster}
OUT=${1:-$CACHE/published-images}
SRC=$here/published-servers
PY=/usr/bin/python3.11
IMAGES=(mcp-memory mcp-time mcp-everything)
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot

log() { printf '[published-images] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# shellcheck source=../../image/node-base.sh
source "$repo/image/node-base.sh"

work=
cid=
cleanup() {
  [[ -n $cid ]] && buildah rm "$cid" >/dev/null 2>&1
  [[ -n $work ]] && rm -rf "$work"
  return 0
}
trap cleanup EXIT

ensure_tools() {
  bash "$here/ensure-image-tools.sh"
  if [[ ! -x $PY ]] || ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
    log "installing python3.11 and python3.11-venv (Debian packages)"
    apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 python3.11 python3.11-venv >/dev/null
  fi
}

pkg_version() { node -p "require('$SRC/$1/package.json').dependencies['$2']"; }
pypi_version() { sed -n "s/^$1==\([^ ]*\).*/\1/p" "$SRC/time/requirements.txt"; }
image_name() {
  case $1 in
    mcp-memory) echo "localhost/agw-mcp-memory:$(pkg_version memory @modelcontextprotocol/server-memory)" ;;
    mcp-everything) echo "localhost/agw-mcp-everything:$(pkg_version everything @modelcontextprotocol/server-everything)" ;;
    mcp-time) echo "localhost/agw-mcp-time:$(pypi_version mcp-server-time)" ;;
  esac
}

# commit NAME ROOT ARCHIVE CONFIG_ARGS...: scratch container, rootfs copied through a mount (cp -a
# keeps owners and modes), config, commit, push to an oci-archive under the full name (so
# `ctr images import` names it), then the image leaves buildah's local storage.
commit() {
  local name=$1 root=$2 archive=$3 mnt
  shift 3
  cid=$(buildah from scratch)
  mnt=$(buildah mount "$cid")
  cp -a "$root/." "$mnt/"
  buildah umount "$cid" >/dev/null
  buildah config --label org.opencontainers.image.title="${name%%:*}" --user 65532:65532 --workingdir /tmp "$@" "$cid"
  buildah commit --quiet --rm "$cid" "$name" >/dev/null
  cid=
  rm -f "$archive.tmp"
  buildah push --quiet "$name" "oci-archive:$archive.tmp:$name" >/dev/null
  buildah rmi "$name" >/dev/null
  mv -f "$archive.tmp" "$archive"
  log "$name: $(du -sh "$root" | cut -f1) unpacked, $(du -h "$archive" | cut -f1) archive"
}

# npm_server DIR BIN: the Node base, then DIR's locked tree in /app (npm ci, no install scripts, no
# dev dependencies). /usr/bin/env from the host (coreutils, links libc only) lets the package's own
# `#!/usr/bin/env node` bin links run as they are, so `command: [BIN]` works as on a workstation.
npm_server() {
  local dir=$1 bin=$2 root=$work/rootfs
  node_base "$root" "$work" "$repo"
  mkdir -p "$root/app" "$root/usr/bin"
  cp "$SRC/$dir/package.json" "$SRC/$dir/package-lock.json" "$root/app/"
  (cd "$root/app" && HOME=$work npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
    --update-notifier=false --cache "$work/npm-cache" >/dev/null)
  [[ -x $root/app/node_modules/.bin/$bin ]] || die "$dir: no node_modules/.bin/$bin after npm ci"
  cp /usr/bin/env "$root/usr/bin/env"
  [[ -z $(ldd /usr/bin/env | grep -v -e linux-vdso -e 'libc\.so' -e ld-linux) ]] || die "/usr/bin/env links more than libc"
}

NODE_ENV_ARGS=(--env PATH=/app/node_modules/.bin:/usr/local/bin:/usr/bin --env HOME=/tmp --env NODE_ENV=production)

build_mcp-memory() {
  npm_server memory mcp-server-memory
  commit "$(image_name mcp-memory)" "$work/rootfs" "$OUT/mcp-memory.oci.tar" "${NODE_ENV_ARGS[@]}" \
    --entrypoint '["/app/node_modules/.bin/mcp-server-memory"]' --cmd '[]'
}

build_mcp-everything() {
  npm_server everything mcp-server-everything
  commit "$(image_name mcp-everything)" "$work/rootfs" "$OUT/mcp-everything.oci.tar" "${NODE_ENV_ARGS[@]}" \
    --env PORT=3001 --port 3001/tcp \
    --entrypoint '["/app/node_modules/.bin/mcp-server-everything"]' --cmd '["streamableHttp"]'
}

# put ROOT FILE: a host file at the same path in ROOT, symlinks followed, its directory resolved
# (/lib64/ld-linux-x86-64.so.2 lands in usr/lib64, as on a merged-/usr host).
put() {
  local dir
  dir=$(readlink -f "$(dirname "$2")")
  mkdir -p "$1$dir"
  cp -L --preserve=mode,timestamps "$2" "$1$dir/$(basename "$2")"
}

# python_base ROOT: Debian's python3.11 and its standard library (without tests, IDLE, Tk,
# ensurepip, lib2to3); put_libs adds the shared libraries.
python_base() {
  local root=$1 stdlib=/usr/lib/python3.11 libs lib
  mkdir -p "$root"/{usr/bin,usr/lib,usr/lib64,etc/ssl/certs,tmp}
  ln -s usr/bin "$root/bin"
  ln -s usr/lib "$root/lib"
  ln -s usr/lib64 "$root/lib64"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
  put "$root" "$PY"
  ln -s python3.11 "$root/usr/bin/python3"
  mkdir -p "$root$stdlib"
  tar -C "$stdlib" --exclude=test --exclude=idlelib --exclude=tkinter --exclude=turtledemo \
    --exclude=ensurepip --exclude=lib2to3 --exclude=__pycache__ --exclude=site-packages \
    --exclude=dist-packages -cf - . | tar -C "$root$stdlib" -xf -
}

# put_libs ROOT ELF...: exactly the host's shared libraries (and the loader) that ldd lists for the
# ELF files; those a wheel bundles (resolved inside ROOT through its RPATH) are there already.
put_libs() {
  local root=$1 libs lib
  shift
  libs=$(ldd "$@" | grep -v ':$') || die "ldd failed"
  grep -q 'not found' <<<"$libs" && die "missing libraries: $(grep 'not found' <<<"$libs")"
  for lib in $(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(0x/ {print $1}' <<<"$libs" | sort -u); do
    [[ $lib == "$root"/* ]] || put "$root" "$lib"
  done
}

# The pinned wheels go to /opt/mcp/lib (--target, PYTHONPATH) by Debian's python3.11 itself running
# the pip of a build venv, so the console scripts pip writes start with #!/usr/bin/python3.11.
build_mcp-time() {
  local root=$work/rootfs venv=$work/venv pipdir elves
  python_base "$root"
  "$PY" -m venv "$venv"
  pipdir=$("$venv/bin/python" -c 'import os, pip; print(os.path.dirname(os.path.dirname(pip.__file__)))')
  PYTHONPATH=$pipdir "$PY" -m pip install -q --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
    --require-hashes --no-deps --only-binary=:all: --no-compile \
    --target "$root/opt/mcp/lib" -r "$SRC/time/requirements.txt" >&2
  mv "$root/opt/mcp/lib/bin" "$root/opt/mcp/bin"
  mapfile -t elves < <(find "$root/opt/mcp/lib" -name '*.so*' -type f)
  put_libs "$root" "$PY" /usr/lib/python3.11/lib-dynload/*.so "${elves[@]}"
  [[ $(head -1 "$root/opt/mcp/bin/mcp-server-time") == "#!$PY" ]] || die "mcp-server-time starts: $(head -1 "$root/opt/mcp/bin/mcp-server-time")"
  commit "$(image_name mcp-time)" "$root" "$OUT/mcp-time.oci.tar" \
    --env PATH=/opt/mcp/bin:/usr/bin --env PYTHONPATH=/opt/mcp/lib --env HOME=/tmp \
    --env PYTHONDONTWRITEBYTECODE=1 --env PYTHONUNBUFFERED=1 \
    --entrypoint '["/opt/mcp/bin/mcp-server-time"]' --cmd '[]'
}

sources_hash() {
  (cd "$repo" && find test/infra/published-server-images.sh image/node-base.sh test/infra/published-servers \
    -type f ! -name verify.sh -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

debs() { dpkg-query -W -f='${Package}=${Version} ' "$@"; }

# stamp NAME: what an archive was built from; a mismatch means rebuild.
stamp() {
  case $1 in
    mcp-memory | mcp-everything) echo "sources=$srcs node=$(node_version "$repo") debs=$(debs libc6 libgcc-s1 libstdc++6)" ;;
    mcp-time) echo "sources=$srcs debs=$(debs python3.11 libpython3.11-stdlib libc6 libssl3)" ;;
  esac
}

main() {
  local t0=$SECONDS name t
  [[ $(id -u) == 0 ]] || die "run as root (buildah's vfs storage is /var/lib/containers)"
  mkdir -p "$OUT" "$CACHE"
  OUT=$(cd "$OUT" && pwd)
  exec 9>"$CACHE/.published-images.lock"
  flock 9
  ensure_tools
  srcs=$(sources_hash)
  for name in "${IMAGES[@]}"; do
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
  for name in "${IMAGES[@]}"; do echo "$OUT/$name.oci.tar $(image_name "$name")"; done
  log "total $((SECONDS - t0))s"
}

main
