"""Writes all-MiniLM-L6-v2's BERT encoder as an ONNX graph (MODEL_DIR/model.onnx) from the
model's safetensors weights, then checks it against the numpy reference and exits 1 if they differ.

Why build it here: no ONNX export of the model is reachable offline and torch is far too heavy to
install for one export, so the graph is written node by node with onnx.helper.

Why com.microsoft ops: onnxruntime's session-time optimiser fuses GELU and MatMul+scale in a plain
opset-17 BERT graph but leaves the attention block as ~10 small ops per layer. Its offline fuser
(onnxruntime.transformers.optimizer) turns that graph into exactly the Attention /
SkipLayerNormalization / BiasGelu nodes written below, but needs sympy (80 MB) to run, so this
script writes the fused nodes directly: fewer nodes to read, and the padding mask is handled inside
Attention. (Measured on the 2-core test machine, the plain graph ran at the same speed per
CPU-second, so the gain over numpy comes from onnxruntime's kernels, not from this fusion.)
  Attention(x, Wqkv, bqkv, mask)   softmax(q k^T / sqrt(32) - 10000 * (1 - mask)) v, 12 heads
  SkipLayerNormalization(a, x, g, b, bias)   LayerNorm(a + bias + x) * g + b
  BiasGelu(a, bias)                GELU_erf(a + bias)

  inputs   input_ids int64 [batch, seq], attention_mask int64 [batch, seq] (1 = token, 0 = padding)
  output   last_hidden_state float32 [batch, seq, 384]; pooling stays in numpy (minilm.py).

Usage: python build_onnx.py MODEL_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from minilm import EPS, HEADS, HIDDEN, LAYERS, MiniLM, read_safetensors

MS = "com.microsoft"  # onnxruntime's contrib-op domain
MIN_COSINE = 0.9999


def build(model_dir: Path) -> onnx.ModelProto:
    w = read_safetensors(model_dir / "model.safetensors")
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(key: str, transpose: bool = False) -> str:
        # torch stores Linear weights (out, in); MatMul wants (in, out).
        value = np.asarray(w[key], dtype=np.float32)
        return const(key, value.T if transpose else value)

    def op(op_type: str, inputs: list[str], out: str, domain: str = "", **attrs: object) -> str:
        nodes.append(helper.make_node(op_type, inputs, [out], name=out, domain=domain, **attrs))
        return out

    # Embeddings: word + position + token type 0 (the server never sends a second segment).
    word = op("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "word", axis=0)
    seq_len = op("Shape", ["input_ids"], "seq_len", start=1, end=2)  # [seq]
    zero = const("zero", np.array([0], dtype=np.int64))
    pos = op("Slice", [weight("embeddings.position_embeddings.weight"), zero, seq_len, zero], "pos")  # rows 0..seq-1
    token_type_0 = const("token_type_0", np.asarray(w["embeddings.token_type_embeddings.weight"][0], dtype=np.float32))
    x = op("Add", [op("Add", [word, pos], "word_pos"), token_type_0], "embedded")
    emb_ln = [weight("embeddings.LayerNorm.weight"), weight("embeddings.LayerNorm.bias")]
    x = op("LayerNormalization", [x, *emb_ln], "emb_ln", axis=-1, epsilon=EPS)
    mask = op("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)  # Attention wants int32

    for i in range(LAYERS):
        p, n = f"encoder.layer.{i}.", f"l{i}_"
        # Q, K and V as one (384, 1152) matmul, the layout Attention expects.
        qkv_w = np.concatenate([w[p + f"attention.self.{k}.weight"] for k in ("query", "key", "value")], axis=0).T
        qkv_b = np.concatenate([w[p + f"attention.self.{k}.bias"] for k in ("query", "key", "value")])
        qkv = [const(n + "qkv_w", qkv_w.astype(np.float32)), const(n + "qkv_b", qkv_b.astype(np.float32))]
        context = op("Attention", [x, *qkv, mask], n + "context", domain=MS, num_heads=HEADS)
        attn_out = op("MatMul", [context, weight(p + "attention.output.dense.weight", transpose=True)], n + "attn_out")
        ln1 = [weight(p + "attention.output.LayerNorm.weight"), weight(p + "attention.output.LayerNorm.bias")]
        ln1.append(weight(p + "attention.output.dense.bias"))
        x = op("SkipLayerNormalization", [attn_out, x, *ln1], n + "ln1", domain=MS, epsilon=EPS)
        h = op("MatMul", [x, weight(p + "intermediate.dense.weight", transpose=True)], n + "inter")
        h = op("BiasGelu", [h, weight(p + "intermediate.dense.bias")], n + "gelu", domain=MS)
        out = op("MatMul", [h, weight(p + "output.dense.weight", transpose=True)], n + "out")
        ln2 = [weight(p + "output.LayerNorm.weight"), weight(p + "output.LayerNorm.bias")]
        ln2.append(weight(p + "output.dense.bias"))
        x = op("SkipLayerNormalization", [out, x, *ln2], n + "ln2", domain=MS, epsilon=EPS)

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))
    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)]  # 17: LayerNormalization
    model = helper.make_model(graph, opset_imports=opsets, producer_name="agw test/infra/embeddings/build_onnx.py")
    model.ir_version = 8  # loadable by any onnxruntime since 1.10
    onnx.checker.check_model(model)
    return model


# Short and long, prose and not, batched together so padding and truncation (positions up to 255)
# are exercised too.
CHECK_TEXTS = [
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    "Short.",
    "the circuit breaker opens after repeated upstream failures",
    "SELECT id, name FROM users WHERE created_at > now() - interval '1 day';",
    "Der Bundestag hat am Donnerstag ein neues Gesetz beschlossen.",
    "東京は日本の首都です。",
    "3.14159 2.71828 1.41421 1.73205 — constants, 🙂 emoji and ümlauts.",
    "def embed(texts):\n    return [model(t) for t in texts]\n",
    " ".join(f"Sentence {i} of a long document about gateways, agents, rate limits and embeddings." for i in range(40)),
    "word " * 400,
]


def check(model_dir: Path, onnx_path: Path) -> None:
    onnx_vectors, _ = MiniLM(model_dir, "onnx", onnx_path).embed(CHECK_TEXTS, batch_size=8)
    numpy_vectors, _ = MiniLM(model_dir, "numpy").embed(CHECK_TEXTS, batch_size=8)
    cosines = (onnx_vectors * numpy_vectors).sum(axis=1)
    worst = int(np.argmin(cosines))
    summary = (
        f"ONNX vs numpy reference on {len(CHECK_TEXTS)} texts: min cosine {cosines[worst]:.7f}, "
        f"max |difference| {np.abs(onnx_vectors - numpy_vectors).max():.2e}"
    )
    if cosines[worst] < MIN_COSINE:
        worst_text = CHECK_TEXTS[worst][:60]
        sys.exit(f"embeddings: FAILED, the ONNX graph does not match the numpy reference. {summary} (text {worst}: {worst_text!r})")
    print(f"embeddings: {summary}", file=sys.stderr)


def main() -> None:
    model_dir = Path(sys.argv[1])
    final, partial = model_dir / "model.onnx", model_dir / "model.onnx.partial"
    final.unlink(missing_ok=True)  # a failed build or check must not leave a stale graph behind
    onnx.save(build(model_dir), str(partial))
    try:
        check(model_dir, partial)
    except SystemExit:
        partial.unlink()
        raise
    partial.replace(final)


if __name__ == "__main__":
    main()
