#!/usr/bin/env bash
# Makes sure the PostgreSQL server binaries the integration tests start are installed (Debian
# package `postgresql`). Runs before `npm test`, so the README's test command works on a fresh machine.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v psql >/dev/null 2>&1; then exit 0; fi
echo "installing PostgreSQL (Debian package) for the integration tests…" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
