"""`POST /files`, `GET /files/{id}` and `DELETE /files/{id}` on the HTTP transport (`_files` keeps
the files): the client's key as for the MCP endpoint; another client's id answers 404
`file-not-found`, exactly like an unknown one. The raw form is read as it arrives and no further than
`files.max_bytes`; with `files.folder` the bytes go to disk as they come and are read back in chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from urllib.parse import quote, unquote

from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode
from .._logging import log_event
from ..access import find_client, presented_key
from ..config import ClientConfig
from ..store import StoreError
from ._files import ANONYMOUS, Files

_READ_CHUNK = 64 * 1024
_FORM_FIELDS, _FORM_PART = 16, 1024 * 1024  # a multipart upload's other fields: how many, how large
_FORM_ROOM = _FORM_FIELDS * _FORM_PART + 64 * 1024  # what they and the part headers may add to the file


# -- POST /files, GET and DELETE /files/{id} -----------------------------------------------------------


async def _upload_chunks(upload: UploadFile) -> AsyncIterator[bytes]:
    while chunk := await upload.read(_READ_CHUNK):
        yield chunk


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


def _declared_over(request: Request, cap: int) -> bool:
    """The request says its body is larger than `cap` (checked before reading any of it)."""
    declared = request.headers.get("content-length", "")
    return declared.isdigit() and int(declared) > cap


def _one_upload(form: FormData, cap: int) -> UploadFile | Response:
    uploads = [value for _, value in form.multi_items() if isinstance(value, UploadFile)]
    if len(uploads) != 1:
        return _error(400, ErrorCode.REQUEST_INVALID, "send exactly one file part")
    if uploads[0].size is not None and uploads[0].size > cap:
        return _too_large(cap)
    return uploads[0]


def file_routes(
    files: Files,
    clients: Callable[[], Mapping[str, ClientConfig]],
    guard: Callable[[Callable[[Request], Awaitable[Response]]], Callable[[Request], Awaitable[Response]]],
) -> list[BaseRoute]:
    """The routes of the files API, each behind `guard` (the Host and Origin checks); `clients` gives
    the clients of the config served now."""

    async def upload(request: Request) -> Response:
        owner = _who(request, clients())
        if isinstance(owner, Response):
            return owner
        cap = files.settings.max_bytes
        content_type = request.headers.get("content-type", "").strip() or "application/octet-stream"
        try:
            if content_type.split(";")[0].strip().lower() == "multipart/form-data":
                if _declared_over(request, cap + _FORM_ROOM):
                    return _too_large(cap)
                form = await request.form(max_files=1, max_fields=_FORM_FIELDS, max_part_size=_FORM_PART)
                try:
                    upload = _one_upload(form, cap)
                    if isinstance(upload, Response):
                        return upload
                    record = await files.put_stream(
                        owner,
                        _upload_chunks(upload),
                        (upload.content_type or "application/octet-stream")[:255],
                        upload.filename or None,
                        cap,
                    )
                finally:
                    await form.close()
            elif _declared_over(request, cap):
                return _too_large(cap)
            else:  # read as it arrives, and no further than the cap
                record = await files.put_stream(
                    owner, request.stream(), content_type[:255], _filename(request), cap
                )
            if record is None:
                return _too_large(cap)
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
        owner = _who(request, clients())
        if isinstance(owner, Response):
            return owner
        file_id = str(request.path_params["file_id"])
        try:
            if request.method == "DELETE":
                return Response(status_code=204) if await files.delete(owner, file_id) else _not_found()
            found = await files.open(owner, file_id)
        except StoreError as error:
            return _error(503, error.code, error.message)
        if found is None:
            return _not_found()
        record, data = found
        headers = {"X-Content-Type-Options": "nosniff"}
        if record.filename:
            headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(record.filename, safe='')}"
        if isinstance(data, bytes):
            return Response(data, media_type=record.content_type, headers=headers)
        headers["Content-Length"] = str(record.size)  # from the folder, chunk by chunk
        return StreamingResponse(data, media_type=record.content_type, headers=headers)

    return [
        Route("/files", guard(upload), methods=["POST"]),
        Route("/files/{file_id}", guard(one), methods=["GET", "DELETE"]),
    ]
