#!/usr/bin/env bash
# Builds the agent-gateway container image without a daemon (buildah, vfs storage), with the same
# layout as the Dockerfile: a distroless-style base assembled from Debian packages (libc6,
# libgcc-s1, libstdc++6: what the Node binary links against) plus the CA bundle and a nonroot
# user, Node 24 from the npm registry package `node` (both image/node-base.sh, shared with the
# published-server test images), the compiled gateway and operator, the
# production dependencies only, and the static agw-bridge binary (Go, image/bridge/build.sh). Writes an OCI archive and prints its size.
#
#   bash image/build.sh [OUT_DIR]     (default: dist/image)
#
# Needs: buildah, dpkg-deb, apt-get (Debian), npm, go (1.26+); run as root (vfs storage under
# /var/lib/containers). test/infra/ensure-image-tools.sh installs the packages.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-dist/image}
VERSION=$(node -p "require('./package.json').version")
NAME=localhost/agent-gateway:$VERSION
export STORAGE_DRIVER=vfs
export BUILDAH_ISOLATION=chroot
log() { printf '[image] %s\n' "$*" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"; [[ -n ${ctr:-} ]] && buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
root=$work/rootfs
mkdir -p "$root" "$OUT"

log "base: Debian packages"
# shellcheck source=node-base.sh
source image/node-base.sh
node_base "$root" "$work" .
mkdir -p "$root/var/lib/agent-gateway" "$root/app/dist"
chown 65532:65532 "$root/var/lib/agent-gateway"
log "node: $(node_version .) from the npm package ($(node_binary .))"

# agw-bridge (issue 40): the static stdio-to-HTTP bridge an init container copies out of this image
# (`agw-bridge --install /agw/bridge`) for MCP servers the operator runs as workloads.
bridge_bin=$(bash image/bridge/build.sh)
log "bridge: $(du -h "$bridge_bin" | cut -f1) static agw-bridge ($bridge_bin)"
cp "$bridge_bin" "$root/usr/local/bin/agw-bridge"
chmod 0755 "$root/usr/local/bin/agw-bridge"

log "app: compiled code and production dependencies"
# The test suite has built dist/ already (npm test builds first) and says so, sparing a second tsc run.
[[ ${AGW_IMAGE_SKIP_BUILD:-0} == 1 && -f dist/gateway/cli/cli-main.js ]] || npm run build --silent
cp package.json package-lock.json "$work/"
(cd "$work" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline >/dev/null)
cp -r "$work/node_modules" package.json bin "$root/app/"
# examples/: the demo MCP server, which test/e2e/kind runs from this image next to the gateway.
cp -r dist/gateway dist/operator dist/examples dist/console "$root/app/dist/"
# Not needed at run time: source maps, type declarations, docs.
find "$root/app/node_modules" \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -type f -delete
rm -rf "$root/app/node_modules/@types"

log "assemble with buildah"
ctr=$(buildah from scratch)
# Copied through a mount (cp -a) so owners and modes survive: the data directory is the runtime
# user's, /tmp is 1777, everything else root's and read-only to it.
mnt=$(buildah mount "$ctr")
cp -a "$root/." "$mnt/"
buildah umount "$ctr" >/dev/null
buildah config \
  --user 65532:65532 --workingdir /app --env NODE_ENV=production --port 8080/tcp \
  --entrypoint '["/usr/local/bin/node","/app/bin/agent-gateway.js"]' --cmd 'serve --kubernetes' \
  --label org.opencontainers.image.title=agent-gateway \
  --label org.opencontainers.image.version="$VERSION" \
  --label org.opencontainers.image.source=https://github.com/agent-gateway/agent-gateway \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$NAME" >/dev/null
ctr=
archive=$OUT/agent-gateway-$VERSION.oci.tar
rm -f "$archive"
buildah push --quiet "$NAME" "oci-archive:$archive:$VERSION" >/dev/null
# The archive is the output (skopeo copy oci-archive:… docker://registry/…); keep local storage
# from growing by one image per build unless asked.
[[ ${KEEP_IMAGE:-0} == 1 ]] || buildah rmi "$NAME" >/dev/null
log "image $NAME: $(du -sh "$root" | cut -f1) unpacked, $(du -h "$archive" | cut -f1) as an OCI archive ($archive)"
echo "$archive"
