"""Reading API documents: JSON/YAML, OpenAPI 3.x and Swagger 2.0, `$ref`s, into one model.

Every name loads on first use (module `__getattr__`): `document.pointer` is imported by the argument
check's worker process (call/_offload.py), which reads no document.

Modules:

- `_load`: the one loader funnel: a path, URL, `-` or text ends in `from_data`, which checks the version
  once.
- `_parse`: JSON or YAML (1.2) text to data, every mapping key a string.
- `_fetch`: a document at an `http(s)://` URL: one `GET` under the egress rules calls obey, bounded.
- `_refs`: `$ref` resolution: local pointers, relative files, same-origin refs of a fetched document.
- `_openapi3`, `_swagger2`: OpenAPI 3.x and Swagger 2.0 documents into the one model.
- `_model`: the version-independent model (`ApiDocument`, `Operation`, `Parameter`, …).
- `_locate`: where a JSON pointer sits in a document's text (`Locator`).
- `pointer`: JSON pointers (RFC 6901): the one place tokens are escaped, split and walked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._fetch import FetchRules as FetchRules
    from ._fetch import is_url as is_url
    from ._load import FileLoader as FileLoader
    from ._load import decode_document as decode_document
    from ._load import from_data as from_data
    from ._load import load_document as load_document
    from ._load import parse_document as parse_document
    from ._load import read_document_file as read_document_file
    from ._locate import Locator as Locator
    from ._locate import locate as locate
    from ._model import ApiDocument as ApiDocument
    from ._model import MediaType as MediaType
    from ._model import Note as Note
    from ._model import Operation as Operation
    from ._model import Parameter as Parameter
    from ._model import RequestBody as RequestBody
    from ._model import Response as Response
    from ._model import Schema as Schema
    from ._model import SecurityScheme as SecurityScheme
    from ._parse import parse_text as parse_text
    from ._refs import Resolver as Resolver
    from ._refs import Target as Target
    from ._refs import UnresolvedRef as UnresolvedRef
    from .pointer import pointer_of as pointer_of


__getattr__, __dir__ = lazy_exports(__name__)
