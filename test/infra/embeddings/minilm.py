"""all-MiniLM-L6-v2 as sentence-transformers runs it: BERT encoder (6 layers, 12 heads, 384 wide,
exact erf GELU), mean pooling over the attention mask, L2 normalisation.

The encoder runs in onnxruntime from model.onnx, which build_onnx.py writes from the model's
safetensors weights at install time (test/infra/ensure-embeddings.sh): ~1.8x the numpy forward
pass's throughput per CPU-second, with the same vectors (cosine >= 0.9999999). reference.py holds
that numpy forward pass (backend="numpy"), the reference build_onnx.py checks the graph against.

Inputs longer than 256 tokens are truncated, as the model's sentence_bert_config.json says (the
tokenizer.json it ships says 128; sentence-transformers overrides that with max_seq_length).
"""

from __future__ import annotations

import json
import os
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

# For the numpy reference only: one BLAS thread per forward pass, and a pass per core instead: with
# OpenBLAS's own threads the attention's hundreds of small per-head matmuls spent ~100x longer
# synchronising threads than computing on a busy 2-core machine (11.6 s vs 0.08 s per batch
# measured). Must be set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

MAX_SEQ_LENGTH = 256
LAYERS = 6
HEADS = 12
HIDDEN = 384
EPS = 1e-12
_DTYPES = {"F32": np.float32, "I64": np.int64}

# (ids int64 [batch, seq], mask int64 [batch, seq]) -> last hidden state float32 [batch, seq, 384]
Encoder = Callable[[np.ndarray, np.ndarray], np.ndarray]


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The format is an 8-byte header length, a JSON header and raw little-endian tensors, so numpy
    reads it without the safetensors package."""
    data = path.read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=(end - start) // dtype.itemsize, offset=base + start).reshape(spec["shape"])
    return tensors


def onnx_encoder(path: Path) -> Encoder:
    import onnxruntime as ort

    options = ort.SessionOptions()
    # One thread per run, and one run per core at a time (MiniLM.embed's pool) on a shared session.
    # On the busy 2-core test machine this did as well as or better than one run on 2 intra-op
    # threads (which synchronise after every op, or spin), and it keeps no spinning threads around.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    # InferenceSession.run is thread-safe and releases the GIL, so runs on the pool's threads overlap.
    return lambda ids, mask: session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


class MiniLM:
    """Loaded once; `embed` spreads a request's sub-batches over the cores itself."""

    def __init__(self, model_dir: Path, backend: str = "onnx", onnx_path: Path | None = None) -> None:
        if backend == "onnx":
            self.encoder = onnx_encoder(onnx_path or model_dir / "model.onnx")
        elif backend == "numpy":
            from reference import NumpyEncoder

            self.encoder = NumpyEncoder(model_dir)
        else:
            raise ValueError(f"unknown backend {backend!r}")
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
        self.pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [sum(e.attention_mask) for e in self.tokenizer.encode_batch(texts)]

    def embed(self, texts: list[str], batch_size: int = 16) -> tuple[np.ndarray, int]:
        """Unit vectors (len(texts), 384) in input order, and the number of tokens read."""
        encodings = self.tokenizer.encode_batch(texts)
        lengths = [sum(e.attention_mask) for e in encodings]
        # Batch texts of similar length together so little compute goes to padding.
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        out = np.empty((len(texts), HIDDEN), dtype=np.float32)

        def run(start: int) -> None:
            idx = order[start : start + batch_size]
            width = max(lengths[i] for i in idx)
            ids = np.array([encodings[i].ids[:width] for i in idx], dtype=np.int64)
            mask = np.array([encodings[i].attention_mask[:width] for i in idx], dtype=np.int64)
            out[idx] = _pool(self.encoder(ids, mask), mask)

        # onnxruntime and numpy release the GIL, so sub-batches run in parallel, one per core.
        list(self.pool.map(run, range(0, len(order), batch_size)))
        return out, sum(lengths)


def _pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over the real tokens, then unit length (sentence-transformers' Pooling + Normalize)."""
    m = mask.astype(np.float32)[:, :, None]
    pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return (pooled / norms).astype(np.float32)
