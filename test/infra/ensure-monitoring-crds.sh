#!/usr/bin/env bash
# Makes sure the prometheus-operator CRDs (ServiceMonitor, PodMonitor, PrometheusRule) are generated
# and cached (~/.cache/agw-monitoring-crds, keyed by version) for the chart's monitoring test, which
# applies them to the test kube-apiserver and server-side dry-runs the objects the chart renders.
# The Go module proxy serves the API types (github.com/prometheus-operator/prometheus-operator/pkg/
# apis/monitoring) but not the main module with the released CRD files, so the CRDs are generated
# from those types with controller-gen (sigs.k8s.io/controller-tools), the generator the project
# itself uses for them. A cold run takes a few minutes, a warm check a moment.
set -euo pipefail
version=v0.95.2        # github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring
controller_tools=v0.23.0 # sigs.k8s.io/controller-tools
dir=${AGW_MONITORING_CRDS_DIR:-$HOME/.cache/agw-monitoring-crds}
out=$dir/$version
if [[ -s $out/monitoring.coreos.com_servicemonitors.yaml && -s $out/monitoring.coreos.com_podmonitors.yaml &&
  -s $out/monitoring.coreos.com_prometheusrules.yaml ]]; then exit 0; fi
command -v go >/dev/null || { echo "ensure-monitoring-crds: go is required" >&2; exit 1; }
echo "generating the prometheus-operator $version CRDs with controller-gen $controller_tools (Go module proxy); a few minutes cold…" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init agw-monitoring-crds >/dev/null 2>&1
echo "ensure-monitoring-crds: fetching the API types and controller-gen…" >&2
go get "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring@$version" \
  "sigs.k8s.io/controller-tools/cmd/controller-gen@$controller_tools" >&2
echo "ensure-monitoring-crds: compiling controller-gen…" >&2
go build -o "$work/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen
types=$(go list -m -f '{{.Dir}}' github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring)
echo "ensure-monitoring-crds: generating from $types/v1…" >&2
mkdir -p "$work/src" "$work/crds"
cp -r "$types/." "$work/src/"
chmod -R u+w "$work/src"
(cd "$work/src" && "$work/controller-gen" crd:crdVersions=v1 paths=./v1/... output:crd:dir="$work/crds")
mkdir -p "$out"
for kind in servicemonitors podmonitors prometheusrules; do
  cp "$work/crds/monitoring.coreos.com_$kind.yaml" "$out/"
done
echo "ensure-monitoring-crds: wrote $out" >&2
