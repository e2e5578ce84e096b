"""specbridge: an API's OpenAPI document, made safe and correct for AI agents.

document = specbridge.load_document("orders.openapi.yaml")
toolset = specbridge.convert(document)
specbridge.export(toolset, "anthropic")
"""

__version__ = "0.1.0"

from ._errors import ConfigError as ConfigError
from ._errors import DocumentError as DocumentError
from ._errors import ErrorCode as ErrorCode
from ._errors import ExportError as ExportError
from ._errors import SpecbridgeError as SpecbridgeError
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

__all__ = [
    "ApiDocument",
    "Config",
    "ConfigError",
    "ConvertOptions",
    "DocumentError",
    "ErrorCode",
    "ExportError",
    "SpecbridgeError",
    "Tool",
    "ToolSet",
    "__version__",
    "convert",
    "export",
    "load_config",
    "load_document",
    "parse_document",
]
