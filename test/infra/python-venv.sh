# Sourced by the ensure-*.sh scripts that need a Python venv (the embeddings model server, the
# Python MCP SDK client). make_venv DIR LABEL creates DIR with `python3 -m venv`, installing
# Debian's python3-venv first when the system python3 lacks venv/ensurepip (a separate package).
make_venv() {
  local dir="$1" label="$2"
  if python3 -m venv "$dir" >/dev/null 2>&1; then return 0; fi
  echo "$label: python3 -m venv failed; installing python3-venv (Debian package)…" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2
  rm -rf "$dir"
  python3 -m venv "$dir"
}
