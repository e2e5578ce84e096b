"""What the gateway answered over stdio to requests whose answer follows from its config and documents
alone (`initialize`, `ping`, the listings), kept on disk beside the conversion cache, so that the next
start answers them again before the gateway and the MCP SDK are loaded (`_front`).

The answers are recorded from the wire, as the SDK wrote them (`Recorder`), so the front never answers
differently from the gateway: it only says again what the gateway said for the same request (its
params, less the client's name and `_meta`), or what the front made itself from the conversion
(`_first_answers`, held to the gateway's answers by its test). An entry holds for one API served to one `--client` under
one config (its whole `repr`), one document (its bytes and those of every file its `$ref`s read) and
one build (every source file of specbridge, the MCP SDK's installed versions); anything else misses,
and the gateway answers (and records) as always. The first reload stops the recording. Entries are
JSON, written whole and renamed; safe to delete.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from .._files import MAX_DOCUMENT_BYTES, read_bounded

FORMAT = 1
RECORDED = frozenset(
    {"initialize", "ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}
)
SUFFIX = ".answers.json"


def request_key(method: str, params: Any) -> str:
    """What an answer is filed under: the method and its params, less what does not change it."""
    if isinstance(params, Mapping):
        params = {name: value for name, value in params.items() if name not in ("clientInfo", "_meta")}
    return method + "\n" + orjson.dumps(params, option=orjson.OPT_SORT_KEYS).decode()


@functools.cache
def build_fingerprint() -> str:
    """Every source file of specbridge (size and modification time) and the MCP SDK's versions."""
    digest = hashlib.sha256(str(FORMAT).encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        with contextlib.suppress(OSError):
            status = path.stat()
            digest.update(f"{path.relative_to(package)}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    spec = importlib.util.find_spec("mcp")  # a top-level package: found, not imported
    if spec is not None and spec.origin is not None:
        site = Path(spec.origin).parents[1]
        with contextlib.suppress(OSError):
            installed = sorted(name for name in os.listdir(site) if name.startswith(("mcp-", "mcp_types-")))
            digest.update("\0".join(installed).encode())
    return digest.hexdigest()


def file_digest(path: str) -> str:
    """The SHA-256 of a file's bytes ("" when it cannot be read), as the conversion records them."""
    try:
        return hashlib.sha256(read_bounded(path, MAX_DOCUMENT_BYTES)).hexdigest()
    except Exception:
        return ""


def entry_key(config: Any, api: str, client: str | None, document_digest: str) -> str | None:
    """The key of the answers for `api` served to `client` under `config` with the document whose
    bytes have `document_digest`; None when the config's `repr` would not say the same next time."""
    text = repr(config)
    if " at 0x" in text or not document_digest:
        return None
    digest = hashlib.sha256(f"{build_fingerprint()}\0{api}\0{client or ''}\0{document_digest}\0".encode())
    digest.update(text.encode())
    return digest.hexdigest()


def entry_path(folder: Path, config: Any, api: str, client: str | None) -> Path:
    """One entry per config file, API and client: a changed document or config replaces it."""
    slot = hashlib.sha256(f"{getattr(config, 'source', '')}\0{api}\0{client or ''}".encode()).hexdigest()
    return folder / f"{slot[:32]}{SUFFIX}"


def read_answers(path: Path, key: str) -> dict[str, Any] | None:
    """The answers filed under `key` at `path`, when every `$ref`ed file is as it was; else None."""
    try:
        entry = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    refs, answers = entry.get("refs"), entry.get("answers")
    if not isinstance(refs, dict) or not isinstance(answers, dict):
        return None
    if any(file_digest(str(ref)) != digest for ref, digest in refs.items()):
        return None
    return answers


def write_answers(path: Path, key: str, refs: Mapping[str, str], answers: Mapping[str, Any]) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial.write_bytes(orjson.dumps({"key": key, "refs": dict(refs), "answers": dict(answers)}))
        partial.replace(path)
    except OSError:  # a full or read-only disk: the next start is only slower
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


class Recorder:
    """Files the gateway's answers to the `RECORDED` requests it sees on the wire, from the line each
    request came in on and the response the SDK sent for it (as the JSON it wrote)."""

    def __init__(self, path: Path, key: str, refs: Mapping[str, str], known: Mapping[str, Any]) -> None:
        self.path = path
        self.key = key
        self.refs = dict(refs)
        self.answers: dict[str, Any] = dict(known)
        self._asked: dict[Any, str] = {}  # request id -> request key, until its answer is seen
        self.stopped = False

    def stop(self) -> None:
        """No more recording (the gateway reloaded: its answers no longer follow from the key)."""
        self.stopped = True
        self._asked.clear()

    def saw_request(self, line: str) -> None:
        if self.stopped or '"method"' not in line:
            return
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            return
        if not isinstance(message, dict) or message.get("method") not in RECORDED or "id" not in message:
            return
        ident = message["id"]
        if isinstance(ident, str | int) and not isinstance(ident, bool):
            self._asked[ident] = request_key(message["method"], message.get("params"))

    def wants(self, ident: Any) -> bool:
        return isinstance(ident, str | int) and ident in self._asked

    def saw_response(self, ident: Any, answer: Mapping[str, Any]) -> None:
        """`answer`: the response's `result` or `error` member, as written to the wire."""
        key = self._asked.pop(ident, None) if isinstance(ident, str | int) else None
        if self.stopped or key is None or self.answers.get(key) == answer:
            return
        self.answers[key] = dict(answer)
        write_answers(self.path, self.key, self.refs, self.answers)
