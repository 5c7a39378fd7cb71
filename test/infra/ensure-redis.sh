#!/usr/bin/env bash
# Makes sure redis-server (Debian package) is installed for the shared-state integration tests. Runs
# before `npm test`, so the README's test command works on a fresh machine.
set -euo pipefail
# redis-cli (redis-tools, a dependency) joins the test Cluster; openssl makes the TLS test's CA.
if command -v redis-server >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1; then exit 0; fi
echo "installing redis-server and openssl (Debian packages) for the integration tests…" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server openssl >&2
