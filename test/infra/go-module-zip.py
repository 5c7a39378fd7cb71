"""Checks and unpacks a Go module zip without a Go toolchain (test/infra/ensure-pgvector.sh).

Prints the zip's go.sum hash (h1:, golang.org/x/mod/sumdb/dirhash Hash1: SHA-256 over the lines
"<sha256 hex>  <path>\\n" of every file, sorted by path) and extracts the files under
<module>@<version>/ into the target directory. Usage: go-module-zip.py <zip> <module@version> <target dir>
"""
import base64
import hashlib
import pathlib
import sys
import zipfile

archive, prefix, target = sys.argv[1], sys.argv[2] + "/", pathlib.Path(sys.argv[3])
lines = []
with zipfile.ZipFile(archive) as zf:
    for info in zf.infolist():
        if info.is_dir():
            continue
        if not info.filename.startswith(prefix) or ".." in info.filename.split("/"):
            sys.exit(f"unexpected path in module zip: {info.filename}")
        data = zf.read(info)
        lines.append((info.filename, f"{hashlib.sha256(data).hexdigest()}  {info.filename}\n"))
        out = target / info.filename[len(prefix):]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
summary = "".join(line for _, line in sorted(lines)).encode()
print("h1:" + base64.b64encode(hashlib.sha256(summary).digest()).decode())
