"""all-MiniLM-L6-v2 as sentence-transformers runs it, in numpy: BERT encoder (6 layers, 12 heads,
384 wide, exact erf GELU), mean pooling over the attention mask, L2 normalisation.

Weights come from the model's safetensors file, read here with numpy (the format is an 8-byte
header length, a JSON header and raw little-endian tensors), so nothing but numpy and
`tokenizers` is needed. Inputs longer than 256 tokens are truncated, as the model's
sentence_bert_config.json says (the tokenizer.json it ships says 128; sentence-transformers
overrides that with max_seq_length).
"""

from __future__ import annotations

import json
import os
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# One BLAS thread per forward pass, and a pass per core instead: with OpenBLAS's own threads the
# attention's hundreds of small per-head matmuls spent ~100x longer synchronising threads than
# computing on a busy 2-core machine (11.6 s vs 0.08 s per batch measured). Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

MAX_SEQ_LENGTH = 256
LAYERS = 6
HEADS = 12
HIDDEN = 384
EPS = 1e-12
_DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
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


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32 rounding at GELU's scale):
    # numpy has no erf and scipy would triple the install for one function.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + EPS) * weight + bias


class MiniLM:
    """Loaded once; `embed` is not thread-safe only in the sense that BLAS already uses every core."""

    def __init__(self, model_dir: Path) -> None:
        w = read_safetensors(model_dir / "model.safetensors")
        f32 = lambda name: np.ascontiguousarray(w[name], dtype=np.float32)  # noqa: E731
        self.word = f32("embeddings.word_embeddings.weight")
        self.position = f32("embeddings.position_embeddings.weight")
        self.token_type = f32("embeddings.token_type_embeddings.weight")
        self.emb_ln = (f32("embeddings.LayerNorm.weight"), f32("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            # Linear weights are stored (out, in); keep them transposed once so x @ W needs no copy,
            # and fuse Q, K and V into one matmul.
            qkv_w = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")], axis=0)
            qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            self.layers.append(
                (
                    np.ascontiguousarray(qkv_w.T, dtype=np.float32),
                    qkv_b.astype(np.float32),
                    np.ascontiguousarray(f32(p + "attention.output.dense.weight").T),
                    f32(p + "attention.output.dense.bias"),
                    (f32(p + "attention.output.LayerNorm.weight"), f32(p + "attention.output.LayerNorm.bias")),
                    np.ascontiguousarray(f32(p + "intermediate.dense.weight").T),
                    f32(p + "intermediate.dense.bias"),
                    np.ascontiguousarray(f32(p + "output.dense.weight").T),
                    f32(p + "output.dense.bias"),
                    (f32(p + "output.LayerNorm.weight"), f32(p + "output.LayerNorm.bias")),
                )
            )
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
            mask = np.array([encodings[i].attention_mask[:width] for i in idx], dtype=np.float32)
            out[idx] = self._forward(ids, mask)

        # numpy releases the GIL in BLAS and ufuncs, so sub-batches run in parallel, one per core.
        list(self.pool.map(run, range(0, len(order), batch_size)))
        return out, sum(lengths)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, seq = ids.shape
        head_dim = HIDDEN // HEADS
        x = self.word[ids] + self.position[:seq][None, :, :] + self.token_type[0]
        x = _layer_norm(x, *self.emb_ln).reshape(batch * seq, HIDDEN)
        # Padding keys get a large negative score, so they weigh nothing after the softmax.
        key_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(head_dim))
        for qkv_w, qkv_b, ao_w, ao_b, ln1, in_w, in_b, out_w, out_b, ln2 in self.layers:
            qkv = (x @ qkv_w + qkv_b).reshape(batch, seq, 3, HEADS, head_dim).transpose(2, 0, 3, 1, 4)
            q, k, v = (np.ascontiguousarray(a) for a in qkv)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, HIDDEN)
            x = _layer_norm(context @ ao_w + ao_b + x, *ln1)
            x = _layer_norm(_gelu(x @ in_w + in_b) @ out_w + out_b + x, *ln2)
        hidden = x.reshape(batch, seq, HIDDEN)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)
