#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the console's browser test
# (test/integration/console-browser.test.ts drives it with playwright-core, which downloads no
# browser). Runs before `npm test`, so a fresh machine installs it itself.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "installing chromium (Debian package) for the console's browser test…" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2
