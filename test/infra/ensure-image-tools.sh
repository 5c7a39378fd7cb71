#!/usr/bin/env bash
# Makes sure the daemonless image tools (Debian packages) are installed for the container-image
# test: buildah builds, umoci unpacks, runc runs, skopeo inspects. Runs before `npm test`.
set -euo pipefail
missing=()
for tool in buildah umoci runc skopeo; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "installing ${missing[*]} (Debian packages) for the container-image test…" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
