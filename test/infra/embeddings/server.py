"""A local OpenAI-compatible embeddings server for the tests and benchmarks (issue 22): serves the
real all-MiniLM-L6-v2 (384 dimensions) from minilm.py (onnxruntime, on the graph build_onnx.py wrote).

  POST /v1/embeddings  {"model", "input": str | [str], "dimensions"?: 384, "encoding_format"?}
  GET  /v1/models      GET /health (no auth)

Errors use OpenAI's shape, {"error": {"message", "type", "code"}}. When AGW_EMBED_API_KEY is set,
/v1/* requires `Authorization: Bearer <key>`. Inputs longer than 256 tokens are truncated (as
sentence-transformers and TEI's truncate=true do). Prints one line, "listening on <url>", once the
model is loaded and the socket accepts.
"""

from __future__ import annotations

import argparse
import base64
import hmac
import json
import os
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from minilm import HIDDEN, MiniLM

MODEL_ID = "all-MiniLM-L6-v2"
MODEL_ALIASES = {MODEL_ID, "sentence-transformers/all-MiniLM-L6-v2"}
MAX_INPUTS = 2048
MAX_BODY_BYTES = 32 * 1024 * 1024


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str, code: str | None, param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.kind, self.code, self.param = status, message, kind, code, param


def bad_request(message: str, code: str, param: str | None = None) -> ApiError:
    return ApiError(400, message, "invalid_request_error", code, param)


def parse_request(body: dict) -> tuple[list[str], str, str]:
    """Validates an embeddings request; returns (texts, model name as sent, encoding format)."""
    model = body.get("model")
    if not isinstance(model, str) or model == "":
        raise bad_request("you must provide a model parameter", "missing_required_parameter", "model")
    if model not in MODEL_ALIASES:
        raise bad_request(f"The model `{model}` does not exist; this server serves {MODEL_ID}", "model_not_found", "model")
    raw = body.get("input")
    if raw is None:
        raise bad_request("you must provide an input parameter", "missing_required_parameter", "input")
    texts = [raw] if isinstance(raw, str) else raw
    if not isinstance(texts, list) or len(texts) == 0:
        raise bad_request("'input' must be a non-empty string or a non-empty array of strings", "invalid_input", "input")
    if len(texts) > MAX_INPUTS:
        raise bad_request(f"'input' has {len(texts)} items; at most {MAX_INPUTS} are allowed", "too_many_inputs", "input")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise bad_request(f"'input[{i}]' must be a string (token arrays are not supported)", "invalid_input", "input")
        if text == "":
            raise bad_request(f"'input[{i}]' must not be empty", "invalid_input", "input")
    dimensions = body.get("dimensions")
    if dimensions is not None and (type(dimensions) is not int or dimensions != HIDDEN):
        raise bad_request(f"{MODEL_ID} only supports dimensions={HIDDEN}", "invalid_dimensions", "dimensions")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise bad_request("'encoding_format' must be 'float' or 'base64'", "invalid_encoding_format", "encoding_format")
    return texts, model, encoding


class Handler(BaseHTTPRequestHandler):
    server_version = "agw-embeddings/1"
    protocol_version = "HTTP/1.1"
    model: MiniLM
    lock: threading.Lock
    api_key: str | None

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass  # quiet: the tests read stdout for the ready line only

    def send_json(self, status: int, payload: object) -> None:
        data = json.dumps(payload, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_error_json(self, err: ApiError) -> None:
        error = {"message": err.message, "type": err.kind, "param": err.param, "code": err.code}
        self.send_json(err.status, {"error": error})

    def check_auth(self) -> None:
        if self.api_key is None:
            return
        header = self.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else ""
        if not hmac.compare_digest(token.encode(), self.api_key.encode()):
            message = "Incorrect API key provided" if token else "You didn't provide an API key"
            raise ApiError(401, message, "invalid_request_error", "invalid_api_key")

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        try:
            if self.path == "/health":
                self.send_json(200, {"status": "ok", "model": MODEL_ID, "dimensions": HIDDEN})
            elif self.path == "/v1/models":
                self.check_auth()
                entry = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "sentence-transformers"}
                self.send_json(200, {"object": "list", "data": [entry]})
            else:
                raise ApiError(404, f"Unknown path {self.path}", "invalid_request_error", "not_found")
        except ApiError as err:
            self.send_error_json(err)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self.close_connection = True
                raise ApiError(413, f"Request body over {MAX_BODY_BYTES} bytes", "invalid_request_error", "body_too_large")
            # Read the body before any other answer: an unread body would be parsed as the next
            # request on this keep-alive connection.
            raw = self.rfile.read(length)
            if self.path != "/v1/embeddings":
                raise ApiError(404, f"Unknown path {self.path}", "invalid_request_error", "not_found")
            self.check_auth()
            try:
                body = json.loads(raw or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise bad_request("We could not parse the JSON body of your request", "invalid_json") from None
            if not isinstance(body, dict):
                raise bad_request("The request body must be a JSON object", "invalid_json")
            texts, model, encoding = parse_request(body)
            with self.lock:  # one request at a time: MiniLM.embed already uses every core
                vectors, tokens = self.model.embed(texts)
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode() if encoding == "base64" else v.tolist(),
                }
                for i, v in enumerate(vectors)
            ]
            usage = {"prompt_tokens": tokens, "total_tokens": tokens}
            self.send_json(200, {"object": "list", "data": data, "model": model, "usage": usage})
        except ApiError as err:
            self.send_error_json(err)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True, type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args()
    Handler.model = MiniLM(args.model_dir)
    Handler.lock = threading.Lock()
    Handler.api_key = os.environ.get("AGW_EMBED_API_KEY") or None
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
