"""Converting operations to tools: names, arguments and their map to the request, schemas, exports.

Every name loads on first use (module `__getattr__`): a gateway that finds its conversion in the cache
(`ConversionCache`) unpickles the model and never imports the conversion itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._cache import ConversionCache as ConversionCache
    from ._cache import default_cache_folder as default_cache_folder
    from ._catalogue import CATALOGUE_MAX_TOKENS as CATALOGUE_MAX_TOKENS
    from ._catalogue import CATALOGUE_MAX_TOOLS as CATALOGUE_MAX_TOOLS
    from ._catalogue import catalogue_tokens as catalogue_tokens
    from ._catalogue import too_big_for_one_context as too_big_for_one_context
    from ._compose import Composed as Composed
    from ._compose import Pick as Pick
    from ._compose import compose as compose
    from ._convert import convert as convert
    from ._describe import APPROVAL_NOTE as APPROVAL_NOTE
    from ._describe import with_approval_note as with_approval_note
    from ._export import ExportFormat as ExportFormat
    from ._export import export as export
    from ._export import export_anthropic as export_anthropic
    from ._export import export_mcp as export_mcp
    from ._export import export_openai as export_openai
    from ._export import mcp_tool as mcp_tool
    from ._headers import FORBIDDEN_HEADER_PREFIXES as FORBIDDEN_HEADER_PREFIXES
    from ._headers import FORBIDDEN_HEADERS as FORBIDDEN_HEADERS
    from ._headers import is_forbidden_header as is_forbidden_header
    from ._model import Argument as Argument
    from ._model import ArgumentLocation as ArgumentLocation
    from ._model import Body as Body
    from ._model import ConvertOptions as ConvertOptions
    from ._model import Hints as Hints
    from ._model import LeftOut as LeftOut
    from ._model import Producer as Producer
    from ._model import Provenance as Provenance
    from ._model import Tool as Tool
    from ._model import ToolOverride as ToolOverride
    from ._model import ToolSet as ToolSet
    from ._naming import PORTABLE_NAME as PORTABLE_NAME
    from ._naming import argument_name as argument_name
    from ._naming import base_name as base_name
    from ._naming import method_path_name as method_path_name
    from ._naming import portable_name as portable_name
    from ._schema_keywords import is_regex as is_regex
    from ._strict import StrictIncompatible as StrictIncompatible
    from ._strict import strict_schema as strict_schema


__getattr__, __dir__ = lazy_exports(__name__)
