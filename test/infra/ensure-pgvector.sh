#!/usr/bin/env bash
# Makes sure the pgvector extension (issue 22's pgvector path) is installed into every PostgreSQL
# server test/infra/postgres-server.ts can start. Debian bookworm ships no pgvector package, so the
# pinned release's source comes through the Go module proxy (`go mod download` checks it against
# the checksum database; the h1: hash below is checked again here), is built with PGXS against
# postgresql-server-dev-<major> under ${AGW_PGVECTOR_CACHE:-$HOME/.cache/agw-pgvector}, and installed
# into the server's extension directories. Runs after ensure-postgres.sh; quiet when already current.
set -euo pipefail
VERSION="v0.8.1"
SUM="h1:Yf1JTBT6v7uGBPaMumdtpBZ2MMiqVNODP6WLNV9wH1k="
CACHE="${AGW_PGVECTOR_CACHE:-$HOME/.cache/agw-pgvector}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi

installed() { # $1 = pg_config; true when this version's control file and library are in place
  local share lib
  share="$("$1" --sharedir)" lib="$("$1" --pkglibdir)"
  [ -f "$share/extension/vector.control" ] && [ -f "$lib/vector.so" ] &&
    grep -q "default_version = '${VERSION#v}'" "$share/extension/vector.control"
}

apt_install() {
  echo "pgvector: installing $* (Debian packages)…" >&2
  $SUDO apt-get update -q >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2
}

for server in /usr/lib/postgresql/*/bin/postgres; do
  [ -x "$server" ] || continue
  major="$(basename "$(dirname "$(dirname "$server")")")"
  pg_config="/usr/lib/postgresql/$major/bin/pg_config"
  if [ -x "$pg_config" ] && installed "$pg_config"; then continue; fi
  start=$(date +%s)
  if [ ! -x "$pg_config" ] || [ ! -f "$("$pg_config" --includedir-server)/postgres.h" ]; then
    apt_install "postgresql-server-dev-$major"
  fi
  command -v make >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 || apt_install build-essential
  if command -v go >/dev/null 2>&1; then
    json="$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/pgvector/pgvector@$VERSION")"
    dir="$(printf '%s' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    got="$(printf '%s' "$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')"
  else
    # No Go toolchain: the same module zip from the proxy, and the same h1: hash computed here.
    dir="$CACHE/src-$VERSION" && rm -rf "$dir" && mkdir -p "$dir"
    command -v curl >/dev/null 2>&1 || apt_install curl ca-certificates
    curl -fsSL -o "$dir.zip" "https://proxy.golang.org/github.com/pgvector/pgvector/@v/$VERSION.zip"
    got="$(python3 "$HERE/go-module-zip.py" "$dir.zip" "github.com/pgvector/pgvector@$VERSION" "$dir")"
  fi
  if [ "$got" != "$SUM" ] || [ ! -f "$dir/Makefile" ]; then
    echo "pgvector: github.com/pgvector/pgvector@$VERSION has sum '$got', expected $SUM" >&2
    exit 1
  fi
  build="$CACHE/$VERSION-pg$major"
  if [ ! -f "$build/vector.so" ]; then
    echo "pgvector: building $VERSION for PostgreSQL $major in $build (once)…" >&2
    rm -rf "$build" && mkdir -p "$CACHE" && cp -r "$dir" "$build" && chmod -R u+w "$build"
    # OPTFLAGS="": no -march=native, so the cached build runs on any x86-64 machine it is copied to.
    make -s -C "$build" PG_CONFIG="$pg_config" OPTFLAGS="" >"$build/build.log" 2>&1 || {
      tail -20 "$build/build.log" >&2
      exit 1
    }
  fi
  $SUDO make -s -C "$build" PG_CONFIG="$pg_config" OPTFLAGS="" install >/dev/null
  echo "pgvector: $VERSION installed for PostgreSQL $major in $(($(date +%s) - start)) s" >&2
done
