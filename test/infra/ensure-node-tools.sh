#!/usr/bin/env bash
# Makes sure the node's runtime parts (Debian packages) are installed for the pod tests
# (test/infra/kube-cluster.sh): containerd (and its ctr), runc, the CNI plugins, iptables, conntrack, ipset.
# Runs before `npm run test:cluster`.
set -euo pipefail
missing=()
command -v containerd >/dev/null 2>&1 || missing+=(containerd)
command -v runc >/dev/null 2>&1 || missing+=(runc)
[[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
command -v iptables >/dev/null 2>&1 || missing+=(iptables)
command -v conntrack >/dev/null 2>&1 || missing+=(conntrack)
command -v ipset >/dev/null 2>&1 || missing+=(ipset)   # kube-router's policy sets
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "installing ${missing[*]} (Debian packages) for the pod tests…" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -q >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
