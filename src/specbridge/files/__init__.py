"""Attachments: files on the store (bytes optionally in `files.folder`), owned by one client, turned into
what a call sends; binary answers kept as files; `POST/GET/DELETE /files`.

Modules:

- `_files`: `Files`: records on the store, owner-checked; `file_id` arguments turned into the bytes a
  call sends; binary answers kept as files; the sweep.
- `_routes`: `POST/GET/DELETE /files`; a file always served as a sandboxed download.
- `_multipart`: a multipart upload read as it streams, under the cap.
- `_folder`: `files.folder`: the bytes on disk under the gateway's own ids, the records in the store.
- `_fields`: which tool fields take a file, the schema the gateway serves for them, the `attachments`
  form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._fields import FILE_REF as FILE_REF
from ._fields import file_fields as file_fields
from ._fields import file_references as file_references
from ._fields import with_file_fields as with_file_fields
from ._files import ANONYMOUS as ANONYMOUS
from ._files import FileNotFound as FileNotFound
from ._files import Files as Files
from ._files import owner_of as owner_of
from ._folder import FileFolder as FileFolder
from ._folder import new_file_id as new_file_id

if TYPE_CHECKING:  # the HTTP routes load Starlette: only the HTTP transport needs them
    from ._routes import file_routes as file_routes

__getattr__, __dir__ = lazy_exports(__name__)
