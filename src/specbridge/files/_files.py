"""Attachments (issue 12): files a client uploads to `POST /files`, passed to tools by `file_id`, and
binary answers kept as files of the calling client.

- `POST /files` takes the raw bytes (`Content-Type`, and the name in `X-Filename` or
  `Content-Disposition: attachment; filename=…`) or a `multipart/form-data` body with one file part;
  `GET /files/{id}` gives the bytes back, `DELETE /files/{id}` removes them (the routes:
  `_file_routes`). Only the client that uploaded a file sees it: another client's id answers 404
  `file-not-found`, exactly like an unknown one.
- Files live in the store (record and bytes), or with `files.folder` the record in the store and the
  bytes in that folder (`_file_folder`); expired ones are swept at most once a minute.
- A tool field that takes a file (a multipart part with `format: binary` or a `contentMediaType`, or a
  raw binary body) accepts `{"file_id", "filename"?, "content_type"?}` in the schema the gateway serves
  (the text the field took before is still accepted: `anyOf` of the two). The gateway reads the bytes
  from the store (owner-checked) and hands them to the call layer as attachments; call/ never sees the store.
- A binary answer (an image, a PDF, an archive) is kept for the calling client (the store opens for it
  if nothing opened it before), and its text gives the `file_id`, so the agent can pass it on to another
  tool; the result carries it as a `KeptFile`, which the gateway hands on as a `resource_link`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from .._errors import CallError, ErrorCode
from .._json import dumps
from .._logging import log_event
from ..access import Identity
from ..call import Attachment, CallResult, KeptFile, browser_media_type, is_media_type, safe_filename
from ..config import ClientConfig, FilesConfig
from ..store import Store, StoredFile, StoreError
from ..tools import Tool
from ._fields import FILE_REF as FILE_REF
from ._fields import file_fields as file_fields
from ._fields import file_references
from ._fields import with_file_fields as with_file_fields
from ._folder import FILE_ID, FileFolder, new_file_id

Json = Any
ANONYMOUS = "-"  # the owner of files when the config has no clients (no keys required)
OCTET_STREAM = "application/octet-stream"
SWEEP_EVERY = 60.0


class FileNotFound(CallError):
    code = ErrorCode.FILE_NOT_FOUND


# -- the files of one gateway ------------------------------------------------------------------------


def owner_of(client: ClientConfig | None, identity: Identity | None = None) -> str:
    """Whose files (and keys, approvals, long calls: `service.CallRequest.principal`) a caller touches:
    its client's; for a token of no known client its subject's, `oauth:<sub>` (so two people holding
    tokens of one unknown client never share them), else the name the token goes by; else (nobody: a
    route open to anyone) the anonymous owner's."""
    if client is not None:
        return client.id
    token = identity.token if identity is not None else None
    if token is not None and token.subject:
        return f"oauth:{token.subject}"
    if identity is not None and identity.name:
        return identity.name
    return ANONYMOUS


class Files:
    """Files on the gateway's store (opened on first use), under the config's `files:`; with
    `files.folder`, the records in the store and the bytes in that folder (`_file_folder`)."""

    def __init__(
        self,
        open_store: Callable[[], Awaitable[Store]],
        settings: Callable[[], FilesConfig],
    ) -> None:
        self._open = open_store
        self._settings = settings
        self._swept_at = 0.0
        self._folder: FileFolder | None = None

    @property
    def settings(self) -> FilesConfig:
        return self._settings()

    def folder(self) -> FileFolder | None:
        """The folder the config names for file bytes (it may change on reload), or None: the store."""
        path = self.settings.folder
        if path is None:
            return None
        if self._folder is None or str(self._folder.path) != path:
            self._folder = FileFolder(path)
        return self._folder

    async def store(self) -> Store:
        store = await self._open()
        now = time.time()
        if now - self._swept_at >= SWEEP_EVERY:
            self._swept_at = now
            try:
                await self._sweep(store, now)
            except StoreError as error:  # the request goes on; the next sweep tries again
                log_event("files sweep failed", level=logging.WARNING, code=str(error.code))
        return store

    async def sweep(self, now: float) -> tuple[int, int]:
        """Remove the records of files expired at `now` and, with a folder, the bytes no live record
        names; how many of each were removed (Redis forgets records by itself)."""
        return await self._sweep(await self._open(), now)

    async def _sweep(self, store: Store, now: float) -> tuple[int, int]:
        records = await store.sweep_files(now)
        folder = self.folder()
        blobs = 0 if folder is None else await folder.sweep(now, lambda ids: store.live_files(ids, now))
        if records or blobs:
            log_event("files expired", removed=records, bytes_removed=blobs)
        return records, blobs

    async def put(self, owner: str, data: bytes, content_type: str, filename: str | None) -> StoredFile:
        record = await self.put_stream(owner, _single(data), content_type, filename, len(data))
        assert record is not None  # the cap is the data's own size
        return record

    async def put_stream(
        self, owner: str, chunks: AsyncIterable[bytes], content_type: str, filename: str | None, cap: int
    ) -> StoredFile | None:
        """Keep the bytes `chunks` bring as a file of `owner`; None, with nothing kept, once they pass
        `cap`. With a folder they go to disk as they arrive; otherwise into the store whole."""
        store, folder, file_id = await self.store(), self.folder(), new_file_id()
        if folder is None:
            data = bytearray()
            async for chunk in chunks:
                data += chunk
                if len(data) > cap:
                    return None
            size, kept = len(data), bytes(data)
        else:
            written = await folder.write(file_id, chunks, cap)
            if written is None:
                return None
            size, kept = written, b""  # the record only: a size above 0 and no bytes means the folder's
        now = time.time()
        record = StoredFile(
            id=file_id,
            owner=owner,
            content_type=content_type,
            filename=filename,
            size=size,
            created_at=now,
            expires_at=now + self.settings.ttl,
        )
        try:
            await store.put_file(record, kept)
        except BaseException:
            if folder is not None and size:
                with contextlib.suppress(StoreError):
                    await folder.remove(file_id)
            raise
        return record

    async def open(self, owner: str, file_id: str) -> tuple[StoredFile, bytes | AsyncIterator[bytes]] | None:
        """A file of `owner` (not expired) and its bytes: whole from the store, or as chunks streamed
        from the folder; None for an unknown, expired or someone else's id alike."""
        found = await (await self.store()).get_file(file_id, owner, time.time())
        if found is None:
            return None
        record, data = found
        if data or record.size == 0:
            return found
        folder = self.folder()
        chunks = None
        if folder is not None and FILE_ID.fullmatch(record.id):
            chunks = await folder.stream(record.id)
        if chunks is None:  # no folder configured now, another instance's folder, or removed by hand
            log_event(
                "file bytes missing", level=logging.WARNING, folder=str(folder.path if folder else None)
            )
            return None
        return record, chunks

    async def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        found = await self.open(owner, file_id)
        if found is None:
            return None
        record, data = found
        if not isinstance(data, bytes):
            data = b"".join([chunk async for chunk in data])
        return record, data

    async def delete(self, owner: str, file_id: str) -> bool:
        if not await (await self.store()).delete_file(file_id, owner, time.time()):
            return False
        folder = self.folder()
        if folder is not None and FILE_ID.fullmatch(file_id):
            await folder.remove(file_id)  # the record is gone: the sweep would remove them too
        return True

    async def attachments(
        self, tool: Tool, owner: str, arguments: Mapping[str, Json]
    ) -> tuple[Mapping[str, Json], dict[str, Attachment]]:
        """The arguments with each file reference taken out (an empty text stands in, so a required
        field is still given) and the bytes it names, as the call layer's attachments."""
        arguments, refs = file_references(tool, arguments)
        return arguments, await self.read(owner, refs)

    async def read(self, owner: str, refs: Mapping[str, Mapping[str, Json]]) -> dict[str, Attachment]:
        """The bytes each reference names (`file_references`), as the call layer's attachments; raises
        FileNotFound for an unknown, expired or someone else's file."""
        attachments: dict[str, Attachment] = {}
        for name, ref in refs.items():
            found = await self.get(owner, str(ref["file_id"]))
            if found is None:
                raise FileNotFound(
                    f"{name}: file {str(ref['file_id'])[:128]!r} not found (unknown, expired, or not yours); "
                    "upload it with POST /files",
                    code=ErrorCode.FILE_NOT_FOUND,
                )
            record, data = found
            filename = ref.get("filename") if isinstance(ref.get("filename"), str) else None
            content_type = ref.get("content_type") if isinstance(ref.get("content_type"), str) else None
            if content_type is not None and not is_media_type(content_type):
                raise CallError(
                    f"invalid arguments: {name}.content_type: not one media type such as "
                    "`image/png` (it becomes a header); nothing was sent",
                    code=ErrorCode.ARGUMENTS_INVALID,
                )
            attachments[name] = (
                safe_filename(filename) or record.filename or name,
                # A record kept by an older gateway may hold a type that cannot be a header.
                content_type or (record.content_type if is_media_type(record.content_type) else OCTET_STREAM),
                data,
            )
        return attachments

    async def keep_answer(self, owner: str, result: CallResult) -> CallResult:
        """A binary answer kept as a file of `owner`, its id in the text and in `file`; the answer as it
        was when it is too large, or when the store cannot keep it now (the text says so). The store
        opens for it if nothing opened it before: whether an answer is kept never depends on what other
        calls happened to do first."""
        binary = result.binary
        if binary is None or result.is_error:
            return replace(result, binary=None) if binary is not None else result
        if len(binary.data) > self.settings.max_bytes:
            note = f" It is larger than files.max_bytes ({self.settings.max_bytes}), so it was not kept."
            return replace(result, text=result.text + note, binary=None)
        # Typed as a browser would read the answer's type (`a, text/html` is HTML), named by the rule.
        kind = browser_media_type(binary.mime_type) or OCTET_STREAM
        try:
            record = await self.put(owner, binary.data, kind, safe_filename(binary.filename))
        except StoreError as error:
            log_event("answer not kept", level=logging.WARNING, code=str(error.code))
            note = " It could not be kept as a file: the gateway's store cannot be reached now."
            return replace(result, text=result.text + note, binary=None)
        described = {
            "file_id": record.id,
            "size": record.size,
            "content_type": record.content_type,
            "filename": record.filename,
        }
        text = (
            f"{result.text} It was kept as the file {record.id} "
            f'({dumps(described)}); pass {{"file_id": "{record.id}"}} to a tool that takes a file, '
            "or GET /files/" + record.id + " for the bytes."
        )
        kept = KeptFile(record.id, record.size, record.content_type, record.filename)
        return replace(result, text=text, binary=None, file=kept)


async def _single(data: bytes) -> AsyncIterator[bytes]:
    yield data
