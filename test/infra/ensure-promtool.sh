#!/usr/bin/env bash
# Makes sure `promtool` (Prometheus's rule checker) is built and cached (~/.cache/agw-promtool, keyed
# by version) for the chart's monitoring test, which runs `promtool check rules` and `promtool test
# rules` on the PrometheusRule the chart renders. Built from the Go module proxy (no download site);
# a cold build takes a few minutes, a warm check a moment.
set -euo pipefail
version=v0.316.0 # github.com/prometheus/prometheus v0.316.0 (Prometheus 3.x)
dir=${AGW_PROMTOOL_DIR:-$HOME/.cache/agw-promtool}
bin=$dir/$version/promtool
if [[ -x $bin ]]; then exit 0; fi
command -v go >/dev/null || { echo "ensure-promtool: go is required to build promtool" >&2; exit 1; }
echo "building promtool (github.com/prometheus/prometheus@$version) from the Go module proxy; a few minutes cold…" >&2
mkdir -p "$dir/$version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init agw-promtool >/dev/null 2>&1
echo "ensure-promtool: fetching the module and its dependencies…" >&2
go get "github.com/prometheus/prometheus@$version" >&2
go get "github.com/prometheus/prometheus/cmd/promtool@$version" >&2
echo "ensure-promtool: compiling…" >&2
CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" github.com/prometheus/prometheus/cmd/promtool
mv "$bin.tmp" "$bin"
echo "ensure-promtool: promtool from github.com/prometheus/prometheus@$version at $bin" >&2
