"""The all-MiniLM-L6-v2 BERT encoder in plain numpy: the reference the ONNX graph is checked against.

This was the server's forward pass before onnxruntime took over (build_onnx.py builds the same
computation as an ONNX graph; the install check in build_onnx.py compares the two and fails if
they drift apart). Kept small and literal on purpose: it is the readable statement of what the
model computes, at about half the speed of onnxruntime.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from minilm import EPS, HEADS, HIDDEN, LAYERS, read_safetensors


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


class NumpyEncoder:
    """`encoder(ids, mask)` -> last hidden state (batch, seq, 384), like the ONNX graph's output."""

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

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, seq = ids.shape
        head_dim = HIDDEN // HEADS
        mask = mask.astype(np.float32)
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
        return x.reshape(batch, seq, HIDDEN)
