"""Reading API documents: JSON/YAML, OpenAPI 3.x and Swagger 2.0, `$ref`s, into one model.

Every name loads on first use (module `__getattr__`): `document.pointer` is imported by the argument
check's worker process (call/_offload.py), which reads no document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._fetch import FetchRules as FetchRules
    from ._fetch import is_url as is_url
    from ._load import from_data as from_data
    from ._load import load_document as load_document
    from ._load import parse_document as parse_document
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

_LAZY = {
    "FetchRules": "._fetch",
    "is_url": "._fetch",
    "from_data": "._load",
    "load_document": "._load",
    "parse_document": "._load",
    "Locator": "._locate",
    "locate": "._locate",
    "ApiDocument": "._model",
    "MediaType": "._model",
    "Note": "._model",
    "Operation": "._model",
    "Parameter": "._model",
    "RequestBody": "._model",
    "Response": "._model",
    "Schema": "._model",
    "SecurityScheme": "._model",
    "parse_text": "._parse",
    "Resolver": "._refs",
    "Target": "._refs",
    "UnresolvedRef": "._refs",
    "pointer_of": ".pointer",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "ApiDocument",
    "FetchRules",
    "Locator",
    "MediaType",
    "Note",
    "Operation",
    "Parameter",
    "RequestBody",
    "Resolver",
    "Response",
    "Schema",
    "SecurityScheme",
    "Target",
    "UnresolvedRef",
    "from_data",
    "is_url",
    "load_document",
    "locate",
    "parse_document",
    "parse_text",
    "pointer_of",
]
