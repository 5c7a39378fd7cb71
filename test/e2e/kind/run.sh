#!/usr/bin/env bash
# End to end on a real cluster, for machines with Docker, kind, kubectl and helm (this project's CI
# machine has no Docker engine, so this script is not part of `npm test`; the chart is tested there
# against a real API server instead). It creates a kind cluster, builds the image and loads it,
# installs the chart, runs the demo MCP server from the same image, applies a Workspace, ApiKey and
# McpSource, waits for Ready, calls the gateway through a port-forward, and deletes the cluster.
#
#   bash test/e2e/kind/run.sh            KEEP=1 keeps the cluster for a look around
set -euo pipefail
cd "$(dirname "$0")/../../.."
CLUSTER=${CLUSTER:-agent-gateway-e2e}
NS=agent-gateway
IMAGE=agent-gateway:e2e
for tool in docker kind kubectl helm curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool on PATH" >&2; exit 2; }
done
cleanup() {
  [[ -n ${forward:-} ]] && kill "$forward" 2>/dev/null || true
  [[ ${KEEP:-0} == 1 ]] || kind delete cluster --name "$CLUSTER"
}
trap cleanup EXIT

kind create cluster --name "$CLUSTER" --wait 120s
docker build -t "$IMAGE" .
kind load docker-image "$IMAGE" --name "$CLUSTER"

kubectl create namespace "$NS"
helm install agw charts/agent-gateway -n "$NS" \
  --set image.repository=agent-gateway --set image.tag=e2e --set image.pullPolicy=Never \
  --wait --timeout 5m

# An upstream MCP server in the cluster: the repository's demo server, from the same image.
kubectl -n "$NS" apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: { name: demo-mcp }
spec:
  selector: { matchLabels: { app: demo-mcp } }
  template:
    metadata: { labels: { app: demo-mcp } }
    spec:
      containers:
        - name: demo-mcp
          image: agent-gateway:e2e
          imagePullPolicy: Never
          command: [/usr/local/bin/node, /app/dist/examples/demo-mcp-server/main.js, --http, "9000", --host, 0.0.0.0]
          ports: [{ containerPort: 9000 }]
---
apiVersion: v1
kind: Service
metadata: { name: demo-mcp }
spec:
  selector: { app: demo-mcp }
  ports: [{ port: 9000, targetPort: 9000 }]
YAML
kubectl -n "$NS" rollout status deployment/demo-mcp --timeout=120s

kubectl -n "$NS" apply -f examples/kubernetes/workspace.yaml -f examples/kubernetes/apikey.yaml
sed 's#http://docs-mcp.example.svc:8080/mcp#http://demo-mcp:9000/mcp#' examples/kubernetes/mcpsource.yaml |
  kubectl -n "$NS" apply -f -
kubectl -n "$NS" wait --for=condition=Ready --timeout=120s workspace/acme apikey/ci-reader mcpsource/docs

SECRET=$(kubectl -n "$NS" get apikey ci-reader -o jsonpath='{.status.secretName}')
KEY=$(kubectl -n "$NS" get secret "$SECRET" -o jsonpath='{.data.key}' | base64 -d)
kubectl -n "$NS" port-forward svc/agw-agent-gateway 8080:80 >/dev/null &
forward=$!
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:8080/readyz >/dev/null && break; sleep 1; done

tools=$(curl -sf http://127.0.0.1:8080/agent/tools -H "Authorization: Bearer $KEY")
echo "$tools"
grep -q 'docs__' <<<"$tools" || { echo "FAIL: no docs__ tools listed" >&2; exit 1; }
curl -sf http://127.0.0.1:8080/agent/mcp/config -H "Authorization: Bearer $KEY" >/dev/null
echo "PASS: helm install → Ready → first agent call"
