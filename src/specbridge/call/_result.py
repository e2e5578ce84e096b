"""The outcome of one tool call, as the gateway and the `call` command hand it on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._errors import ErrorCode


@dataclass(frozen=True, slots=True)
class ImageContent:
    data: bytes
    mime_type: str


@dataclass(frozen=True, slots=True)
class BinaryContent:
    """A binary answer's bytes (PDF, archive, image...), for a gateway that keeps them as a file; the
    agent reads only the result's text."""

    data: bytes
    mime_type: str
    filename: str | None = None  # from the answer's Content-Disposition


@dataclass(frozen=True, slots=True)
class KeptFile:
    """A file the gateway kept for the caller (a binary answer): what a `resource_link` tells of it."""

    file_id: str
    size: int
    mime_type: str
    filename: str | None = None


@dataclass(frozen=True, slots=True)
class CallResult:
    """`text` is what the agent reads. `structured` is the parsed JSON answer when it came whole (MCP
    structuredContent: an object for every revision, any JSON value for 2026-07-28). `is_error` results
    carry a stable `code` listed in docs/errors.md. `shortened`: a JSON answer cut to the answer budget
    (so it has no `structured`). `file`: the binary answer kept as a file of the caller. `answer`: the
    parsed JSON answer whole (after `fields`), whatever the answers budget cut from `text`, for a
    code-mode script (codemode/); never handed to a model as it is, nor stored."""

    text: str
    is_error: bool = False
    code: ErrorCode | None = None
    status: int | None = None  # the upstream HTTP status, when a request was sent
    structured: Any = None
    image: ImageContent | None = None
    binary: BinaryContent | None = None
    shortened: bool = False
    file: KeptFile | None = None
    handle: str | None = None  # a pending call's id (`call-pending`, `approval-pending`): asked for later
    answer: Any = field(default=None, compare=False, repr=False)
