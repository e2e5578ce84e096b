"""specbridge: an API's OpenAPI document, made safe and correct for AI agents.

document = specbridge.load_document("orders.openapi.yaml")
toolset = specbridge.convert(document)
specbridge.export(toolset, "anthropic")

The names below load on first use (module `__getattr__`): every process that imports any part of the
package runs this file first, and the argument check's worker process (call/_offload.py) needs none
of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._errors import ConfigError as ConfigError
from ._errors import DocumentError as DocumentError
from ._errors import ErrorCode as ErrorCode
from ._errors import ExportError as ExportError
from ._errors import SpecbridgeError as SpecbridgeError
from ._lazy import lazy_exports
from ._version import __version__ as __version__

if TYPE_CHECKING:
    from .config import Config as Config
    from .config import load_config as load_config
    from .document import ApiDocument as ApiDocument
    from .document import load_document as load_document
    from .document import parse_document as parse_document
    from .tools import ConvertOptions as ConvertOptions
    from .tools import Tool as Tool
    from .tools import ToolSet as ToolSet
    from .tools import convert as convert
    from .tools import export as export


__getattr__, __dir__ = lazy_exports(__name__)
