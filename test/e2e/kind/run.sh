#!/usr/bin/env bash
# The pod tests on kind, for machines with Docker, kind, kubectl and helm. It runs the same test file
# as `npm test` does on this project's own one-node cluster (test/e2e/cluster/chart-on-a-node.test.ts,
# see test/infra/kube-cluster.sh): the README's install steps, the HA values, and the churn cases.
# Here the cluster is kind, the gateway image is built with Docker and loaded into it, Redis and
# PostgreSQL are the public images, and Services are reached through a NodePort on the kind node.
#
#   bash test/e2e/kind/run.sh            KEEP=1 keeps the cluster for a look around
set -euo pipefail
cd "$(dirname "$0")/../../.."
CLUSTER=${CLUSTER:-agent-gateway-e2e}
IMAGE=agent-gateway:e2e
for tool in docker kind kubectl helm npm; do
  command -v "$tool" >/dev/null || { echo "needs $tool on PATH" >&2; exit 2; }
done
work=$(mktemp -d)
cleanup() {
  [[ ${KEEP:-0} == 1 ]] || kind delete cluster --name "$CLUSTER"
  rm -rf "$work"
}
trap cleanup EXIT

kind create cluster --name "$CLUSTER" --wait 120s
kind get kubeconfig --name "$CLUSTER" > "$work/kubeconfig"
docker build -t "$IMAGE" .
kind load docker-image "$IMAGE" --name "$CLUSTER"
for image in "${AGW_E2E_REDIS_IMAGE:-redis:7.0}" "${AGW_E2E_POSTGRES_IMAGE:-postgres:15}"; do
  docker pull -q "$image" >/dev/null && kind load docker-image "$image" --name "$CLUSTER"
done

npm ci --no-audit --no-fund
npm run build --silent
AGW_E2E_KUBECONFIG=$work/kubeconfig AGW_E2E_IMAGE=$IMAGE AGW_E2E_KIND_NODE=$CLUSTER-control-plane \
  npx vitest run -c vitest.cluster.config.ts
