"""The numpy sentence encoder on a tiny BERT the test writes itself (config, safetensors, tokenizer):
the real loading and forward code, without the 90 MB model of the extra."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="numpy comes with the semantic extra")
tokenizers = pytest.importorskip("tokenizers", reason="tokenizers comes with the semantic extra")
pytest.importorskip("threadpoolctl", reason="threadpoolctl comes with the semantic extra")

pytest.importorskip("huggingface_hub", reason="huggingface_hub comes with the semantic extra")

from specbridge.search import (  # noqa: E402
    SearchIndex,
    SearchSettings,
    SemanticUnavailable,
    hub_model_dir,
    load_encoder,
)
from specbridge.search._semantic import MODEL_FILES  # noqa: E402
from tests.search._shop import shop  # noqa: E402

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "refund",
    "a",
    "charge",
    "list",
    "customers",
    "delete",
    "the",
    "rain",
]
HIDDEN, HEADS, LAYERS, INNER = 8, 2, 2, 16


def _tensors(seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> object:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    found: dict[str, object] = {
        "embeddings.word_embeddings.weight": weight(len(VOCAB), HIDDEN),
        "embeddings.position_embeddings.weight": weight(32, HIDDEN),
        "embeddings.token_type_embeddings.weight": weight(2, HIDDEN),
        "embeddings.LayerNorm.weight": np.ones(HIDDEN, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(HIDDEN, np.float32),
    }
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        for name in ("query", "key", "value"):
            found[p + f"attention.self.{name}.weight"] = weight(HIDDEN, HIDDEN)
            found[p + f"attention.self.{name}.bias"] = weight(HIDDEN)
        found[p + "attention.output.dense.weight"] = weight(HIDDEN, HIDDEN)
        found[p + "attention.output.dense.bias"] = weight(HIDDEN)
        found[p + "intermediate.dense.weight"] = weight(INNER, HIDDEN)
        found[p + "intermediate.dense.bias"] = weight(INNER)
        found[p + "output.dense.weight"] = weight(HIDDEN, INNER)
        found[p + "output.dense.bias"] = weight(HIDDEN)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            found[p + norm + ".weight"] = np.ones(HIDDEN, np.float32)
            found[p + norm + ".bias"] = np.zeros(HIDDEN, np.float32)
    return found


def write_model(directory: Path, seed: int = 1) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(
        json.dumps({"num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "layer_norm_eps": 1e-12})
    )
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, array in _tensors(seed).items():
        data = array.tobytes()  # type: ignore[attr-defined]
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }  # type: ignore[attr-defined]
        blobs.append(data)
        offset += len(data)
    encoded = json.dumps(header).encode()
    (directory / "model.safetensors").write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))
    model = tokenizers.models.WordPiece({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(directory / "tokenizer.json"))
    return directory


def encoder_for(directory: Path) -> object:
    encoder = load_encoder(SearchSettings(semantic="on", model_dir=directory))
    assert encoder is not None
    return encoder


def test_texts_become_unit_vectors_of_the_models_width(tmp_path: Path) -> None:
    vectors = encoder_for(write_model(tmp_path / "m")).encode(["refund a charge", "list customers"])  # type: ignore[attr-defined]
    assert vectors.shape == (2, HIDDEN)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_text_encodes_the_same_alone_and_padded_in_a_batch(tmp_path: Path) -> None:
    encoder = encoder_for(write_model(tmp_path / "m"))
    alone = encoder.encode(["refund"])  # type: ignore[attr-defined]
    batched = encoder.encode(["refund", "delete the customers list the charge refund a rain"])  # type: ignore[attr-defined]
    assert np.allclose(alone[0], batched[0], atol=1e-5)  # padding is masked out of attention and pooling


def test_different_texts_get_different_vectors(tmp_path: Path) -> None:
    vectors = encoder_for(write_model(tmp_path / "m")).encode(["refund a charge", "the rain"])  # type: ignore[attr-defined]
    assert float(vectors[0] @ vectors[1]) < 0.999


def test_an_index_with_a_model_directory_caches_its_tool_vectors(tmp_path: Path) -> None:
    directory = write_model(tmp_path / "m")
    settings = SearchSettings(semantic="on", model_dir=directory, cache_dir=tmp_path / "cache")
    toolset = shop()
    index = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)
    assert index.semantic and index.vectors.shape == (4, len(toolset.tools), HIDDEN)
    assert len(list((tmp_path / "cache").glob("*.npy"))) == 1
    again = SearchIndex.build(toolset.tools, toolset.document.data, settings=settings)
    assert np.array_equal(again.vectors, index.vectors)
    # a random tiny model ranks by chance: what it must do is rank the same from the cache
    assert again.search("refund a charge").tools == index.search("refund a charge").tools
    assert "refundCharge" in [tool.name for tool in index.search("refund a charge").tools]


def test_a_model_file_that_is_not_safetensors_is_refused_with_its_code(tmp_path: Path) -> None:
    directory = write_model(tmp_path / "m")
    (directory / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00not json")
    with pytest.raises(SemanticUnavailable) as raised:
        load_encoder(SearchSettings(semantic="on", model_dir=directory))
    assert raised.value.code == "search-model-unavailable"


class Hub:
    """`huggingface_hub.snapshot_download` as the hub answers it: what its cache holds, or a download.
    The hub itself cannot be reached from this machine, so the download puts the tiny model in place."""

    def __init__(self, tmp_path: Path, cached: bool, reachable: bool = True) -> None:
        self.folder = tmp_path / "hub" / "snapshot"
        self.cached, self.reachable = cached, reachable
        self.calls: list[tuple[str, bool, list[str]]] = []
        if cached:
            write_model(self.folder)

    def __call__(self, repo_id: str, *, allow_patterns: list[str], local_files_only: bool = False) -> str:
        from huggingface_hub.errors import LocalEntryNotFoundError

        self.calls.append((repo_id, local_files_only, allow_patterns))
        if self.cached:
            return str(self.folder)
        if local_files_only or not self.reachable:
            raise LocalEntryNotFoundError("not in the cache, and the hub cannot be reached")
        write_model(self.folder)
        self.cached = True
        return str(self.folder)


def test_the_model_is_fetched_from_the_hub_once_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = Hub(tmp_path, cached=False)
    monkeypatch.setattr("huggingface_hub.snapshot_download", hub)
    assert hub_model_dir() == hub.folder
    assert hub_model_dir() == hub.folder
    assert [(local, patterns) for _, local, patterns in hub.calls] == [
        (True, list(MODEL_FILES)),
        (False, list(MODEL_FILES)),  # the download: these three files, not the model's other formats
        (True, list(MODEL_FILES)),  # then the cache answers, without the network
    ]
    assert {repo for repo, _, _ in hub.calls} == {"sentence-transformers/all-MiniLM-L6-v2"}
    encoder = load_encoder(SearchSettings(semantic="on"))
    assert encoder is not None and encoder.encode(["refund a charge"]).shape[0] == 1


def test_a_hub_that_cannot_be_reached_says_to_name_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("huggingface_hub.snapshot_download", Hub(tmp_path, cached=False, reachable=False))
    assert load_encoder(SearchSettings(semantic="auto")) is None  # auto: BM25 alone
    with pytest.raises(SemanticUnavailable) as raised:
        load_encoder(SearchSettings(semantic="on"))
    assert "sentence-transformers/all-MiniLM-L6-v2 (Hugging Face hub)" in raised.value.message
    assert "name it in `search.model`" in raised.value.message


def test_without_the_extra_semantic_on_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(SemanticUnavailable) as raised:
        load_encoder(SearchSettings(semantic="on"))
    assert "pip install 'specbridge[semantic]'" in raised.value.message
