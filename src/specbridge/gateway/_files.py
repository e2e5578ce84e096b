"""Attachments (issue 12): files a client uploads to `POST /files`, passed to tools by `file_id`, and
binary answers kept as files of the calling client.

- `POST /files` takes the raw bytes (`Content-Type`, and the name in `X-Filename` or
  `Content-Disposition: attachment; filename=…`) or a `multipart/form-data` body with one file part;
  `GET /files/{id}` gives the bytes back, `DELETE /files/{id}` removes them. Only the client that
  uploaded a file sees it: another client's id answers 404 `file-not-found`, exactly like an unknown one.
- A tool field that takes a file (a multipart part with `format: binary` or a `contentMediaType`, or a
  raw binary body) accepts `{"file_id", "filename"?, "content_type"?}` in the schema the gateway serves
  (the text the field took before is still accepted: `anyOf` of the two). The gateway reads the bytes
  from the store (owner-checked) and hands them to the call layer as attachments; call/ never sees the store.
- A binary answer (an image, a PDF, an archive) is kept for the calling client when the store is open,
  and its text gives the `file_id`, so the agent can pass it on to another tool.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import CallError, ErrorCode
from .._json import dumps
from ..call import Attachment, CallResult
from ..config import ClientConfig, FilesConfig
from ..store import Store, StoredFile, StoreError
from ..tools import Tool
from ._clients import find_client, presented_key
from ._file_fields import FILE_REF as FILE_REF
from ._file_fields import file_fields as file_fields
from ._file_fields import from_attachments, is_file_ref
from ._file_fields import with_file_fields as with_file_fields
from ._logging import log_event

if TYPE_CHECKING:
    from ._gateway import Gateway

Json = Any
ANONYMOUS = "-"  # the owner of files when the config has no clients (no keys required)
SWEEP_EVERY = 60.0
_READ_CHUNK = 64 * 1024


class FileNotFound(CallError):
    code = ErrorCode.FILE_NOT_FOUND


# -- the files of one gateway ------------------------------------------------------------------------


def owner_of(client: ClientConfig | None) -> str:
    return client.id if client is not None else ANONYMOUS


class Files:
    """Files on the gateway's store (opened on first use), under the config's `files:`."""

    def __init__(
        self,
        open_store: Callable[[], Awaitable[Store]],
        settings: Callable[[], FilesConfig],
        is_open: Callable[[], bool],
    ) -> None:
        self._open = open_store
        self._settings = settings
        self._is_open = is_open
        self._swept_at = 0.0

    @property
    def settings(self) -> FilesConfig:
        return self._settings()

    async def store(self) -> Store:
        store = await self._open()
        now = time.time()
        if now - self._swept_at >= SWEEP_EVERY:
            self._swept_at = now
            removed = await store.sweep_files(now)
            if removed:
                log_event("files expired", removed=removed)
        return store

    async def put(self, owner: str, data: bytes, content_type: str, filename: str | None) -> StoredFile:
        now = time.time()
        record = StoredFile(
            id="f_" + secrets.token_hex(16),
            owner=owner,
            content_type=content_type,
            filename=filename,
            size=len(data),
            created_at=now,
            expires_at=now + self.settings.ttl,
        )
        await (await self.store()).put_file(record, data)
        return record

    async def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        return await (await self.store()).get_file(file_id, owner, time.time())

    async def delete(self, owner: str, file_id: str) -> bool:
        return await (await self.store()).delete_file(file_id, owner, time.time())

    async def attachments(
        self, tool: Tool, owner: str, arguments: Mapping[str, Json]
    ) -> tuple[Mapping[str, Json], dict[str, Attachment]]:
        """The arguments with each file reference taken out (an empty text stands in, so a required
        field is still given) and the bytes it names, as the call layer's attachments."""
        arguments = from_attachments(tool, arguments)
        refs = {name: arguments[name] for name in file_fields(tool) if is_file_ref(arguments.get(name))}
        if not refs:
            return arguments, {}
        resolved = dict(arguments)
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
            attachments[name] = (
                filename or record.filename or name,
                content_type or record.content_type,
                data,
            )
            resolved[name] = ""
        return resolved, attachments

    async def keep_answer(self, owner: str, result: CallResult) -> CallResult:
        """A binary answer kept as a file of `owner`, its id in the text; the answer as it was when it
        is too large or the gateway has not opened its store (a config that never uses one keeps none)."""
        binary = result.binary
        if binary is None or result.is_error or not self._is_open():
            return replace(result, binary=None) if binary is not None else result
        if len(binary.data) > self.settings.max_bytes:
            note = f" It is larger than files.max_bytes ({self.settings.max_bytes}), so it was not kept."
            return replace(result, text=result.text + note, binary=None)
        try:
            record = await self.put(owner, binary.data, binary.mime_type, binary.filename)
        except StoreError as error:
            log_event("answer not kept", code=str(error.code))
            return replace(result, binary=None)
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
        return replace(result, text=text, binary=None)


# -- POST /files, GET and DELETE /files/{id} -----------------------------------------------------------


def _error(status: int, code: ErrorCode, message: str) -> Response:
    headers = {"WWW-Authenticate": 'Bearer realm="specbridge"'} if status == 401 else None
    return JSONResponse(
        {"error": {"code": str(code), "message": message}}, status_code=status, headers=headers
    )


def _not_found() -> Response:
    return _error(404, ErrorCode.FILE_NOT_FOUND, "not found")


def _too_large(cap: int) -> Response:
    return _error(413, ErrorCode.FILE_TOO_LARGE, f"the file is larger than this gateway keeps ({cap} bytes)")


def _who(request: Request, clients: Mapping[str, ClientConfig]) -> str | Response:
    """The owner of the files this request may touch, or the refusal (as for the MCP endpoint)."""
    if not clients:
        return ANONYMOUS
    key = presented_key(request.headers)
    if key is None:
        return _error(
            401, ErrorCode.KEY_MISSING, "send your key as `Authorization: Bearer <key>` or `X-Api-Key: <key>`"
        )
    client = find_client(key, clients)
    if client is None:
        return _error(401, ErrorCode.KEY_INVALID, "this key is not known to the gateway")
    return client.id


def _filename(request: Request) -> str | None:
    name = request.headers.get("x-filename")
    if name is None:
        for part in request.headers.get("content-disposition", "").split(";"):
            key, _, value = part.strip().partition("=")
            if key.strip().lower() == "filename*" and "''" in value:
                name = value.split("''", 1)[1]
                break
            if key.strip().lower() == "filename":
                name = value.strip().strip('"')
    if not name:
        return None
    plain = unquote(name).replace("\\", "/").rsplit("/", 1)[-1].strip()
    return "".join(ch for ch in plain if ch.isprintable())[:255] or None


async def _raw_body(request: Request, cap: int) -> bytes | None:
    """The body, or None as soon as it passes `cap` bytes (the rest is not read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        return None
    out = bytearray()
    async for chunk in request.stream():
        out += chunk
        if len(out) > cap:
            return None
    return bytes(out)


async def _multipart_file(request: Request, cap: int) -> tuple[bytes, str, str | None] | Response:
    form = await request.form(max_files=1, max_fields=16, max_part_size=1024 * 1024)
    try:
        uploads = [value for _, value in form.multi_items() if isinstance(value, UploadFile)]
        if len(uploads) != 1:
            return _error(400, ErrorCode.REQUEST_INVALID, "send exactly one file part")
        upload = uploads[0]
        if upload.size is not None and upload.size > cap:
            return _too_large(cap)
        data = await upload.read(cap + 1)
        if len(data) > cap:
            return _too_large(cap)
        return data, upload.content_type or "application/octet-stream", upload.filename or None
    finally:
        await form.close()


def file_routes(
    gateway: Gateway,
    guard: Callable[[Callable[[Request], Awaitable[Response]]], Callable[[Request], Awaitable[Response]]],
) -> list[BaseRoute]:
    """The routes of the files API, each behind `guard` (the Host and Origin checks)."""
    files = gateway.files

    async def upload(request: Request) -> Response:
        owner = _who(request, gateway.snapshot.clients)
        if isinstance(owner, Response):
            return owner
        cap = files.settings.max_bytes
        content_type = request.headers.get("content-type", "").strip() or "application/octet-stream"
        try:
            if content_type.split(";")[0].strip().lower() == "multipart/form-data":
                parsed = await _multipart_file(request, cap)
                if isinstance(parsed, Response):
                    return parsed
                data, content_type, filename = parsed
            else:
                raw = await _raw_body(request, cap)
                if raw is None:
                    return _too_large(cap)
                data, filename = raw, _filename(request)
            record = await files.put(owner, data, content_type[:255], filename)
        except StoreError as error:
            return _error(503, error.code, error.message)
        except (HTTPException, MultiPartException) as error:  # a malformed multipart body
            detail = error.detail if isinstance(error, HTTPException) else error.message
            return _error(400, ErrorCode.REQUEST_INVALID, f"the multipart body could not be read: {detail}")
        log_event("file uploaded", client=owner, size=record.size)
        return JSONResponse(
            {
                "file_id": record.id,
                "size": record.size,
                "content_type": record.content_type,
                "filename": record.filename,
                "expires_at": record.expires_at,
            },
            status_code=201,
        )

    async def one(request: Request) -> Response:
        owner = _who(request, gateway.snapshot.clients)
        if isinstance(owner, Response):
            return owner
        file_id = str(request.path_params["file_id"])
        try:
            if request.method == "DELETE":
                return Response(status_code=204) if await files.delete(owner, file_id) else _not_found()
            found = await files.get(owner, file_id)
        except StoreError as error:
            return _error(503, error.code, error.message)
        if found is None:
            return _not_found()
        record, data = found
        headers = {"X-Content-Type-Options": "nosniff"}
        if record.filename:
            headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(record.filename, safe='')}"
        return Response(data, media_type=record.content_type, headers=headers)

    return [
        Route("/files", guard(upload), methods=["POST"]),
        Route("/files/{file_id}", guard(one), methods=["GET", "DELETE"]),
    ]
