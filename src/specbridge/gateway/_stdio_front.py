"""The stdio front: a stdio start's first answers, given before the gateway and the MCP SDK are loaded.

A desktop client starts every stdio server it knows at launch and waits for `initialize` and
`tools/list`; loading the gateway and the SDK takes most of a second. When the answers to those
requests were recorded by an earlier start under the same config, document and build (`_answers`),
the front reads stdin itself and says them again, until the client asks something else or pauses
(`IDLE`). Then it hands over (`Handover`): the gateway is loaded and reads first the client's
`initialize` (whose answer, already given, it does not send again), every notification and every
request the front did not answer, in the order they came, then the rest of stdin. Without such
answers, an API in search mode is converted here and its first answers made from the conversion
(`_first_answers`), which the gateway then takes over; otherwise the front answers nothing and hands
everything over at once: the gateway answers as always (and records them for the next start).
Nothing here imports the gateway or the SDK.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ._answers import entry_key, entry_path, file_digest, read_answers, request_key, write_answers
from ._first_answers import Answer, first_answers

if TYPE_CHECKING:
    from ..config import Config
    from ..tools import ConversionCache

IDLE = 0.1  # seconds of silence after an answer before the gateway is loaded
FIRST = 2.0  # seconds to wait for the client's first message
_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class Handover:
    """What the gateway takes over: `prefix`, the bytes its stdin reader reads first; `drop`, the id of
    the `initialize` in it whose answer the client already has; `digest`, the document's digest the
    front's answers were for ("" when it gave none)."""

    prefix: bytes = b""
    drop: Any = None
    digest: str = ""
    answered: int = 0


def stdio_front(
    config: Config, api: str, client: str | None, cache: ConversionCache, *, make: bool = True
) -> Handover:
    """Answer what was recorded for this start, or (with `make`) what follows from the converted
    document alone, on stdin/stdout; then say what the gateway takes over."""
    settings = config.apis.get(api)
    if settings is None or settings.operations or not settings.spec:
        return Handover()
    if settings.spec.startswith(("http://", "https://")):
        return Handover()
    digest = file_digest(settings.spec)
    if not digest:
        return Handover()
    folder = cache.folder if cache.private() else None
    key = entry_key(config, api, client, digest) if folder is not None else None
    path = entry_path(folder, config, api, client) if folder is not None else None
    answers = read_answers(path, key) if path is not None and key is not None else None
    if answers:
        return _said(_Front(lambda method, params: answers.get(request_key(method, params)), digest))
    made = first_answers(config, api, client, cache) if make else None
    if made is None:
        return Handover()
    front = _Front(made.answer, digest)
    if path is not None and key is not None:  # said again by the next start's front

        def record(said: dict[str, Any]) -> None:
            write_answers(path, key, made.refs, said)

        front.record = record
    return _said(front)


def _said(front: _Front) -> Handover:
    try:
        return front.run()
    except OSError:  # stdin or stdout is not what a client gives a server: the gateway will say so
        return Handover()


class _Front:
    def __init__(self, answer: Answer, digest: str) -> None:
        self.answer = answer
        self.digest = digest
        self.pending = b""  # read, not yet split into lines
        self.replay: list[bytes] = []  # lines the gateway reads first, in order
        self.drop: Any = None
        self.answered = 0
        self.said: dict[str, Any] = {}  # the answers given, by `request_key`
        self.record: Callable[[dict[str, Any]], None] | None = None  # files `said`, before each answer

    def run(self) -> Handover:
        wait = FIRST
        while True:
            readable, _, _ = select.select([0], [], [], wait)
            if not readable:
                break
            chunk = os.read(0, _CHUNK)
            if not chunk:
                break  # end of input: the gateway sees it too, and ends
            self.pending += chunk
            if not self._answer_lines():
                break
            wait = IDLE
        if self.drop is None:  # nothing answered: everything is the gateway's, as read
            return Handover(prefix=b"".join(self.replay) + self.pending)
        return Handover(
            prefix=b"".join(self.replay) + self.pending,
            drop=self.drop,
            digest=self.digest,
            answered=self.answered,
        )

    def _answer_lines(self) -> bool:
        """Answer every complete line that can be; False at the first that cannot (it and everything
        after it stay for the gateway)."""
        while b"\n" in self.pending:
            line, rest = self.pending.split(b"\n", 1)
            if not self._answer(line):
                return False
            self.pending = rest
        return True

    def _answer(self, line: bytes) -> bool:
        if not line.strip():
            return True
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return False  # a response or a batch: nothing the front knows of
        if "id" not in message:  # a notification: the gateway hears it, in order
            self.replay.append(line + b"\n")
            return True
        method, ident = message["method"], message["id"]
        if (method == "initialize") != (self.drop is None):
            return False  # a request before `initialize`, or a second one
        answer = self.answer(method, message.get("params"))
        if not isinstance(answer, dict) or not ({"result", "error"} & answer.keys()):
            return False
        self.said[request_key(method, message.get("params"))] = answer
        if self.record is not None:
            self.record(self.said)
        _write({"jsonrpc": "2.0", "id": ident, **answer})
        self.answered += 1
        if method == "initialize":
            self.replay.insert(0, line + b"\n")
            self.drop = ident
        return True


def _write(message: dict[str, Any]) -> None:
    data = orjson.dumps(message) + b"\n"
    while data:
        with contextlib.suppress(InterruptedError):
            data = data[os.write(1, data) :]
