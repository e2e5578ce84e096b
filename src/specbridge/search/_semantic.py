"""Semantic ranking, optional (`pip install specbridge[semantic]`): a sentence-embedding model, tool
vectors computed once and kept on disk.

Without the extra, `load_encoder` returns None and search is BM25 alone. The model comes from where
models come from: the Hugging Face hub, by its model id (`MODEL_ID`), fetched once by the hub's own
client library (`huggingface_hub`) into the user's Hugging Face cache and read from there afterwards
(`HF_HOME`, `HF_HUB_OFFLINE` and a token work as for any hub download). A machine without network
names a folder instead (`search.model`, `SearchSettings.model_dir`) holding the same files
(`config.json`, `model.safetensors`, `tokenizer.json`), e.g. one copied from another machine's cache.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol

from .._errors import ErrorCode, SpecbridgeError

# The model, by its Hugging Face model id, and the files of it the encoder reads (not its other formats).
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How search mode ranks. `semantic`: "auto" uses the model when the extra is installed, "off"
    never does, "on" requires it. `cache_dir`: where tool vectors are kept between starts (None: the
    user's cache folder; "" keeps nothing)."""

    semantic: Literal["auto", "on", "off"] = "auto"
    model_dir: Path | None = None
    cache_dir: Path | Literal[""] | None = None

    def cache_folder(self) -> Path | None:
        if self.cache_dir == "":
            return None
        if self.cache_dir is not None:
            return Path(self.cache_dir)
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "specbridge" / "embeddings"


class Encoder(Protocol):
    """Texts to unit vectors (a numpy array of shape (len(texts), dimensions))."""

    model_id: str

    def encode(self, texts: list[str]) -> Any: ...


class SemanticUnavailable(SpecbridgeError):
    """`semantic: on` without the extra installed, or a model directory that cannot be read."""

    code = ErrorCode.SEARCH_MODEL_UNAVAILABLE


@dataclass(slots=True)
class _ModelEncoder:
    model_id: str
    model: Any

    def encode(self, texts: list[str]) -> Any:
        return self.model.encode(texts)


def hub_model_dir(model_id: str = MODEL_ID) -> Path:
    """The model's folder in the user's Hugging Face cache: what is there already (no network), else
    fetched once by `huggingface_hub`. ImportError without the extra; OSError (the hub's errors are
    OSErrors) when it is neither cached nor reachable."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model_id, allow_patterns=list(MODEL_FILES), local_files_only=True))
    except OSError:  # not cached yet (LocalEntryNotFoundError)
        pass
    return Path(snapshot_download(model_id, allow_patterns=list(MODEL_FILES)))


@lru_cache(maxsize=2)
def _model(directory: Path) -> Any:
    """One model per directory for the whole process: every API and every reload shares its ~90 MB."""
    from ._minilm import MiniLM  # numpy and tokenizers come with the extra

    return MiniLM(directory)


def load_encoder(settings: SearchSettings) -> Encoder | None:
    """The embedding model the settings ask for, or None for BM25 alone."""
    if settings.semantic == "off":
        return None
    try:
        directory = settings.model_dir or hub_model_dir()
        model = _model(Path(directory))
    except ImportError as error:
        if settings.semantic == "on":
            raise SemanticUnavailable(
                "semantic search needs its model, which cannot be loaded: the semantic extra is not "
                f"installed ({error.name or error}): pip install 'specbridge[semantic]'"
            ) from error
        return None
    except (OSError, ValueError, KeyError) as error:
        if settings.semantic == "on":
            where = settings.model_dir or f"{MODEL_ID} (Hugging Face hub)"
            raise SemanticUnavailable(
                f"semantic search needs its model, which cannot be loaded from {where}: "
                f"{type(error).__name__}: {str(error)[:200]}; on a machine without network, copy the "
                "model's folder and name it in `search.model`"
            ) from error
        return None
    model_id = MODEL_ID if settings.model_dir is None else f"{MODEL_ID}@{directory}"
    return _ModelEncoder(model_id, model)


def cache_key(model_id: str, sentences: Sequence[str]) -> str:
    digest = hashlib.sha256(model_id.encode())
    for sentence in sentences:
        digest.update(b"\0" + sentence.encode())
    return digest.hexdigest()


def tool_vectors(encoder: Encoder, sentences: Sequence[str], cache: Path | None) -> Any:
    """One unit vector per sentence: from the cache when these very sentences were encoded by this
    model before, else computed (each distinct sentence once) and stored (written whole, then renamed, so a reader never sees half)."""
    import numpy as np

    path = cache / f"{cache_key(encoder.model_id, sentences)}.npy" if cache is not None else None
    if path is not None:
        try:
            vectors = np.load(path, allow_pickle=False)
            if vectors.shape[0] == len(sentences):
                return vectors
        except (OSError, ValueError):
            pass
    if sentences:
        # a tool without a title says the same in several views: each distinct sentence once
        distinct = list(dict.fromkeys(sentences))
        where = {sentence: row for row, sentence in enumerate(distinct)}
        vectors = encoder.encode(distinct)[[where[sentence] for sentence in sentences]]
    else:
        vectors = np.zeros((0, 1), dtype=np.float32)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            with partial.open("wb") as handle:
                np.save(handle, vectors, allow_pickle=False)
            partial.replace(path)
        except OSError:
            pass  # a read-only cache only costs the next start the same work again
    return vectors


def fuse(
    vectors: Any,
    query: Any,
    lexical: Mapping[int, float],
    candidates: Sequence[int] | None,
    lexical_share: float,
    count: int,
    lowered: Mapping[int, float] | None = None,
) -> list[int]:
    """The `count` best tools by a weighted sum of the BM25 score (divided by the best one) and the
    similarity to `query` (scaled to 0..1 over the candidates). `vectors` has shape (views, tools,
    dimensions): several unit vectors per tool, the closest of which counts. A sum of scores keeps how
    far apart the tools are on each signal, which a fusion of ranks throws away: a tool far ahead on
    words stays ahead of one a little closer in meaning."""
    import numpy as np

    rows = np.asarray(candidates if candidates is not None else range(vectors.shape[1]), dtype=np.int64)
    if rows.size == 0 or count <= 0:
        return []
    similarity = (vectors[:, rows] @ query).max(0)
    low, high = float(similarity.min()), float(similarity.max())
    fused = (1 - lexical_share) * (similarity - low) / ((high - low) or 1.0)
    position = {int(row): n for n, row in enumerate(rows)}
    if lexical:
        best = max(lexical.values()) or 1.0
        for i, score in lexical.items():
            if i in position:
                fused[position[i]] += lexical_share * score / best
    for i, factor in (lowered or {}).items():
        if i in position:
            fused[position[i]] *= factor
    count = min(count, rows.size)
    top = np.argpartition(-fused, count - 1)[:count]
    top = top[np.argsort(-fused[top], kind="stable")]
    return [int(rows[i]) for i in top]
