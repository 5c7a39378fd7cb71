#!/usr/bin/env bash
# Makes sure the Python MCP SDK (PyPI `mcp`, pinned with all its dependencies in
# test/infra/python-mcp/requirements.txt) is installed in a venv under
# ${AGW_PYTHON_MCP_CACHE:-$HOME/.cache/agw-python-mcp}, for the outside-client test of progressive
# tool disclosure (issue 23, test/integration/tool-disclosure-clients.test.ts, which runs
# test/fixtures/clients/find_and_call.py with it). Runs before `npm test`; a cached install returns at
# once. The `installed` stamp records the requirements and the Python it was built with (a change
# reinstalls); `freeze.txt` beside it is what pip actually put in the venv.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=python-venv.sh
source "$HERE/python-venv.sh"
CACHE="${AGW_PYTHON_MCP_CACHE:-$HOME/.cache/agw-python-mcp}"
REQS="$HERE/python-mcp/requirements.txt"
WANT="$(printf '%s\n' "$(python3 --version 2>&1)" "$(grep -v '^#' "$REQS")")"
if [ -f "$CACHE/installed" ] && [ "$(cat "$CACHE/installed")" = "$WANT" ] && [ -x "$CACHE/venv/bin/python" ]; then
  exit 0
fi
start=$(date +%s)
echo "python-mcp: installing the Python MCP SDK into $CACHE (once)…" >&2
rm -rf "$CACHE/venv" "$CACHE/installed" "$CACHE/freeze.txt"
mkdir -p "$CACHE"
make_venv "$CACHE/venv" python-mcp
# Every pin is exact; dependencies stay on so that a Python other than 3.11 still gets the
# marker-only packages it needs (pip check below fails if the set is not consistent).
echo "python-mcp: pip install -r test/infra/python-mcp/requirements.txt" >&2
"$CACHE/venv/bin/pip" install -q --no-cache-dir -r "$REQS" >&2
"$CACHE/venv/bin/pip" check >&2
"$CACHE/venv/bin/python" -c 'import httpx2, mcp; from mcp.client import Client; from mcp.client.streamable_http import streamable_http_client'
"$CACHE/venv/bin/pip" freeze >"$CACHE/freeze.txt"
printf '%s\n' "$WANT" >"$CACHE/installed"
echo "python-mcp: ready in $(($(date +%s) - start)) s ($(grep '^mcp==' "$CACHE/freeze.txt"))" >&2
