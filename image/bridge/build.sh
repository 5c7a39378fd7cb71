#!/usr/bin/env bash
# Builds agw-bridge as a static binary (CGO_ENABLED=0, no third-party modules) into a cache keyed by
# the sha256 of its sources, the Go version and the target platform, and prints the binary's path.
# A cached build returns at once. Go comes from the machine (go.mod names the minimum).
#
#   bash image/bridge/build.sh            -> ~/.cache/agw-bridge/<hash>/agw-bridge
#   GOARCH=arm64 bash image/bridge/build.sh
#
# AGW_BRIDGE_CACHE overrides the cache directory.
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "agw-bridge: no Go toolchain on PATH (go 1.26 or later)" >&2; exit 1; }
export CGO_ENABLED=0 GOFLAGS=-trimpath
goos=${GOOS:-$(go env GOOS)}
goarch=${GOARCH:-$(go env GOARCH)}
hash=$(
  cd "$src"
  {
    go version
    echo "$goos/$goarch"
    # The binary's inputs: go.mod and every non-test Go file, names and contents.
    find . -maxdepth 1 -type f \( -name go.mod -o -name '*.go' \) ! -name '*_test.go' -print | LC_ALL=C sort |
      while read -r file; do echo "$file"; sha256sum <"$file"; done
  } | sha256sum | cut -c1-24
)
cache=${AGW_BRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agw-bridge}
out=$cache/$hash/agw-bridge
if [[ ! -x $out ]]; then
  mkdir -p "$cache/$hash"
  tmp=$(mktemp "$cache/$hash/.agw-bridge.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  (cd "$src" && GOOS=$goos GOARCH=$goarch go build -ldflags "-s -w" -o "$tmp" .)
  chmod 0755 "$tmp"
  # Rename is atomic: parallel builds (test workers) each write their own file, one wins.
  mv -f "$tmp" "$out"
  trap - EXIT
fi
echo "$out"
