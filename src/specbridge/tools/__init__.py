"""Converting operations to tools: names, arguments and their map to the request, schemas, exports.

Every name loads on first use (module `__getattr__`): a gateway that finds its conversion in the cache
(`ConversionCache`) unpickles the model and never imports the conversion itself.

Modules:

- `_convert`: Operation → Tool, the one conversion `lint`, `tools` and `serve` all use.
- `_model`: what a conversion produces: tools, arguments, the map from each argument to the request.
- `_naming`: MCP names, the portable 64-character form, stable uniqueness.
- `_arguments`: four namespaces into one object, with the argument→location map.
- `_schema`: `SchemaShaper`, document schemas into JSON Schema 2020-12 per direction.
- `_schema_graph`: which `$ref` targets are recursive (Tarjan's strongly connected components).
- `_schema_answer`, `_schema_direction`, `_schema_keywords`: what an answer schema does differently,
  what a direction hides, the vocabulary kept.
- `_discriminator`: each discriminated branch pins its value.
- `_form`: what a form or query cannot carry (an empty object or array).
- `_describe`: a tool's description, title and hints.
- `_headers`: headers no argument may set.
- `_icons`: a tool's icons from the document's logo.
- `_answer_fields`, `_links`, `_provenance`, `_provenance_note`: where an id comes from (answers'
  identifying fields, OpenAPI `links`), and the description's lines that say so.
- `_compose`: tools of several APIs served as one list (a toolset).
- `_catalogue`: how big a tool list is for a model.
- `_export`: MCP, Anthropic and OpenAI tools (optionally strict).
- `_strict`, `_strict_limits`, `_strict_overlap`: OpenAI strict mode: its subset, its size limits, when a
  `oneOf` may become `anyOf`.
- `_cache`: `ConversionCache`, the conversion of an unchanged document kept on disk between starts.
- `_compact`: a conversion made compact before it is kept: equal values become one object.
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
