"""`POST /files`, `GET /files/{id}` and `DELETE /files/{id}` on the HTTP transport (`_files` keeps
the files): the caller let in by the gateway's one admission step (`access.Admission.anywhere`: a
client key, or an access token an API with `oauth:` takes; nothing only where an MCP endpoint takes
nothing), the files being its own (`owner_of`); another caller's id answers 404
`file-not-found`, exactly like an unknown one. An upload, raw or multipart (`_multipart`), is read as
it arrives and no further than `files.max_bytes`; with `files.folder` the bytes go to disk as they come
and are read back in chunks. A file is always served as an attachment that cannot run on the gateway's
origin (`served_headers`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode
from .._logging import log_event
from ..access import Identity, Refusal, refused
from ..call import browser_media_type, is_media_type, safe_filename
from ..store import StoredFile, StoreError
from ._files import Files, owner_of
from ._multipart import FIELDS_ROOM, MultipartUpload, UploadRefused

OCTET_STREAM = "application/octet-stream"


# -- POST /files, GET and DELETE /files/{id} -----------------------------------------------------------


Admit = Callable[[Request], Awaitable[Identity | Refusal]]


def _not_found() -> Response:
    return refused(404, ErrorCode.FILE_NOT_FOUND, "not found")


def _too_large(cap: int) -> Response:
    return refused(413, ErrorCode.FILE_TOO_LARGE, f"the file is larger than this gateway keeps ({cap} bytes)")


async def _who(request: Request, admit: Admit) -> str | Response:
    """The owner of the files this request may touch, or the refusal (as for the MCP endpoint)."""
    outcome = await admit(request)
    if isinstance(outcome, Refusal):
        log_event("files refused", status=outcome.status, code=str(outcome.code), reason=outcome.message)
        return refused(outcome.status, outcome.code, outcome.message, outcome.headers)
    return owner_of(outcome.client, outcome)


def _filename(request: Request) -> str | None:
    """The name a raw upload gives in `X-Filename` or `Content-Disposition`, under the one filename rule."""
    name = request.headers.get("x-filename")
    if name is None:
        for part in request.headers.get("content-disposition", "").split(";"):
            key, _, value = part.strip().partition("=")
            if key.strip().lower() == "filename*" and "''" in value:
                name = value.split("''", 1)[1]
                break
            if key.strip().lower() == "filename":
                name = value.strip().strip('"')
    return safe_filename(unquote(name)) if name else None


def served_headers(record: StoredFile) -> dict[str, str]:
    """The headers `GET /files/{id}` answers with, so that the bytes never run as a document on the
    gateway's origin (where the admin page lives): always an attachment (with its name when it has
    one), sandboxed with nothing allowed should a browser render it anyway, never sniffed, and typed
    only with one well-formed media type (anything else: `application/octet-stream`)."""
    disposition = "attachment"
    name = safe_filename(record.filename)
    if name is not None:
        fallback = "".join(ch if " " <= ch <= "~" and ch not in '"\\%' else "_" for ch in name)
        disposition += f"; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"
    return {
        "Content-Type": record.content_type if is_media_type(record.content_type) else OCTET_STREAM,
        "Content-Disposition": disposition,
        "Content-Security-Policy": "sandbox; default-src 'none'",
        "X-Content-Type-Options": "nosniff",
    }


async def _multipart(files: Files, owner: str, upload: MultipartUpload, cap: int) -> StoredFile | None:
    """The one file part of a multipart upload kept as it streams in (None past `cap`); the rest of
    the body read after it, and the file removed again when that rest is refused."""
    part = await upload.file_part()
    if part is None:
        raise UploadRefused(400, "send exactly one file part")
    kind = browser_media_type(part.content_type) or OCTET_STREAM
    record = await files.put_stream(owner, upload.file_bytes(), kind, safe_filename(part.filename), cap)
    if record is None:
        return None
    try:
        await upload.finish()
    except BaseException:
        await files.delete(owner, record.id)
        raise
    return record


def _declared_over(request: Request, cap: int) -> bool:
    """The request says its body is larger than `cap` (checked before reading any of it)."""
    declared = request.headers.get("content-length", "")
    return declared.isdigit() and int(declared) > cap


def file_routes(
    files: Files,
    admit: Admit,
    guard: Callable[[Callable[[Request], Awaitable[Response]]], Callable[[Request], Awaitable[Response]]],
) -> list[BaseRoute]:
    """The routes of the files API, each behind `guard` (the Host and Origin checks); `admit` is the
    gateway's admission step for a caller of the MCP endpoints (of the config served now)."""

    async def upload(request: Request) -> Response:
        owner = await _who(request, admit)
        if isinstance(owner, Response):
            return owner
        cap = files.settings.max_bytes
        content_type = request.headers.get("content-type", "")
        try:
            if content_type.split(";")[0].strip().lower() == "multipart/form-data":
                if _declared_over(request, cap + FIELDS_ROOM):
                    return _too_large(cap)
                record = await _multipart(
                    files, owner, MultipartUpload(content_type, request.stream(), cap), cap
                )
            elif _declared_over(request, cap):
                return _too_large(cap)
            else:  # read as it arrives, and no further than the cap
                kind = browser_media_type(content_type) or OCTET_STREAM
                record = await files.put_stream(owner, request.stream(), kind, _filename(request), cap)
            if record is None:
                return _too_large(cap)
        except StoreError as error:
            return refused(503, error.code, error.message)
        except UploadRefused as upload:
            if upload.status == 413:
                return _too_large(cap)
            return refused(400, ErrorCode.REQUEST_INVALID, upload.message)
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
        owner = await _who(request, admit)
        if isinstance(owner, Response):
            return owner
        file_id = str(request.path_params["file_id"])
        try:
            if request.method == "DELETE":
                return Response(status_code=204) if await files.delete(owner, file_id) else _not_found()
            found = await files.open(owner, file_id)
        except StoreError as error:
            return refused(503, error.code, error.message)
        if found is None:
            return _not_found()
        record, data = found
        headers = served_headers(record)
        if isinstance(data, bytes):
            return Response(data, headers=headers)
        headers["Content-Length"] = str(record.size)  # from the folder, chunk by chunk
        return StreamingResponse(data, headers=headers)

    return [
        Route("/files", guard(upload), methods=["POST"]),
        Route("/files/{file_id}", guard(one), methods=["GET", "DELETE"]),
    ]
