"""A `multipart/form-data` upload read as it streams: the one file part's bytes handed on chunk by chunk
(to disk or the store, under the size cap), never spooled whole first, whatever the framing (a
`Content-Length` or chunked). The other fields are read, bounded (how many, how large) and dropped.

    upload = MultipartUpload(content_type, request.stream(), cap)
    part = await upload.file_part()        # the headers of the file part (None: no file part at all)
    await files.put_stream(owner, upload.file_bytes(), part.content_type, part.filename, cap)
    await upload.finish()                  # the rest: a second file part or a malformed body refuses

Every step raises `UploadRefused` (a 400 or 413 answer) rather than read on: past `cap` plus the room
the fields may take, at a second file part, at a malformed body.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

FIELDS, FIELD_BYTES = 16, 1024 * 1024  # the other fields: how many, how large each
HEADERS_ROOM = 64 * 1024  # what the part headers, boundaries and preamble may add
FIELDS_ROOM = FIELDS * FIELD_BYTES + HEADERS_ROOM


class UploadRefused(Exception):
    """The upload is refused: `status` 400 (malformed, not one file part) or 413 (too large)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Part:
    name: str
    filename: str | None  # as sent: the caller applies the filename rule
    content_type: str | None


_END = object()  # the end of the current part


class MultipartUpload:
    """One multipart body, parsed as its chunks arrive (see the module)."""

    def __init__(self, content_type: str, stream: AsyncIterator[bytes], cap: int) -> None:
        _, params = parse_options_header(content_type)
        boundary = params.get(b"boundary")
        if not boundary:
            raise UploadRefused(400, "the multipart body has no boundary in its Content-Type")
        self._stream = stream
        self._limit = cap + FIELDS_ROOM  # what the whole body may be
        self._read = 0
        self._events: list[object] = []
        self._headers: list[tuple[bytes, bytes]] = []
        self._field, self._value = b"", b""
        self._fields = 0
        self._field_size = 0
        self._current: Part | None = None
        self._file: Part | None = None
        self._ended = False
        try:
            self._parser = MultipartParser(
                boundary,
                {
                    "on_part_begin": self._begin,
                    "on_header_field": self._header_field,
                    "on_header_value": self._header_value,
                    "on_header_end": self._header_end,
                    "on_headers_finished": self._headers_finished,
                    "on_part_data": self._data,
                    "on_part_end": lambda: self._events.append(_END),
                    "on_end": self._end,
                },
            )
        except FormParserError as error:
            raise UploadRefused(400, f"the multipart body could not be read: {error}") from None

    # -- parser callbacks (synchronous; they only queue events) ------------------------------------------

    def _begin(self) -> None:
        self._headers = []

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers.append((self._field.lower().strip(), self._value.strip()))
        self._field, self._value = b"", b""

    def _headers_finished(self) -> None:
        headers = dict(self._headers)
        _, options = parse_options_header(headers.get(b"content-disposition", b""))
        if b"name" not in options:
            raise UploadRefused(400, 'a part of the multipart body has no Content-Disposition "name"')
        filename = options.get(b"filename")
        kind = headers.get(b"content-type")
        self._events.append(
            Part(
                name=_text(options[b"name"]),
                filename=None if filename is None else _text(filename),
                content_type=None if kind is None else _text(kind),
            )
        )

    def _data(self, data: bytes, start: int, end: int) -> None:
        self._events.append(data[start:end])

    def _end(self) -> None:
        self._ended = True

    # -- reading -------------------------------------------------------------------------------------

    async def _next(self) -> object | None:
        """The next event (a `Part`, a chunk of its bytes, `_END`), or None at the end of the body."""
        while not self._events:
            if self._ended:
                return None
            chunk = await anext(self._stream, None)
            if chunk is None:
                try:
                    self._parser.finalize()
                except FormParserError as error:
                    raise UploadRefused(400, f"the multipart body could not be read: {error}") from None
                if not self._ended:
                    raise UploadRefused(400, "the multipart body ended before its closing boundary")
                return None
            self._read += len(chunk)
            if self._read > self._limit:
                raise UploadRefused(413, "too large")
            try:
                self._parser.write(chunk)
            except FormParserError as error:
                raise UploadRefused(400, f"the multipart body could not be read: {error}") from None
        return self._events.pop(0)

    async def _skip_field(self, part: Part) -> None:
        """Read a field that is not the file, bounded, and drop it."""
        self._fields += 1
        if self._fields > FIELDS:
            raise UploadRefused(400, f"too many fields: send one file part and at most {FIELDS} other fields")
        size = 0
        while (event := await self._next()) is not _END:
            if event is None or isinstance(event, Part):
                raise UploadRefused(400, "the multipart body could not be read")
            size += len(event) if isinstance(event, bytes) else 0
            if size > FIELD_BYTES:
                raise UploadRefused(400, f"the field {part.name[:64]!r} is larger than {FIELD_BYTES} bytes")

    async def file_part(self) -> Part | None:
        """Read up to the headers of the file part (a part with a filename); None when the body has
        none."""
        while (event := await self._next()) is not None:
            if not isinstance(event, Part):
                raise UploadRefused(400, "the multipart body could not be read")
            if event.filename is not None:
                self._file = event
                return event
            await self._skip_field(event)
        return None

    async def file_bytes(self) -> AsyncIterator[bytes]:
        """The file part's bytes as they arrive, up to its end."""
        while (event := await self._next()) is not _END:
            if not isinstance(event, bytes):
                raise UploadRefused(400, "the multipart body could not be read")
            if event:
                yield event

    async def finish(self) -> None:
        """Read the rest of the body: fields are dropped, another file part is refused."""
        while (event := await self._next()) is not None:
            if not isinstance(event, Part):
                raise UploadRefused(400, "the multipart body could not be read")
            if event.filename is not None:
                raise UploadRefused(400, "send exactly one file part")
            await self._skip_field(event)


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")
