"""`specbridge.yaml`: the model (frozen dataclasses), secret references, and the reader that checks a file
against the shipped JSON Schema (`specbridge.schema.json`) with errors naming the file, the key path and
the closest valid key. An example file opens `_model`.

Modules:

- `_model`: `specbridge.yaml` as frozen dataclasses, read by the other layers as plain data.
- `_reader`: reading the file: the schema check, then what a schema cannot say, while the model is built.
- `_schema`: the shipped JSON Schema (`specbridge.schema.json`) and its errors as messages.
- `_secrets`: `env:`/`file:` references read only when needed; `looks_like_secret`.
- `_units`: durations and sizes as the config writes them.
- `_auth`: `apis.<name>.auth` and the top-level `store_key`.
- `_grant`: `GrantConfig`, an `oauth2_*` auth's settings.
- `_oauth`: `apis.<name>.oauth`, the gateway as a resource server.
- `_front`, `_oauth_server`: `oauth_server:`, the gateway's own authorization server, as settings and as
  read.
- `_rules`, `_access`: the access rules (`clients.<id>.tools`, `oauth.scopes`, `limits.per_client`,
  `limits.per_tool`, `audit`) as settings, and their reading; `check_access_names`.
- `_tool_names`: every `tools.<name>` names a tool; `api_toolset(api)`, an API's document converted
  under its settings.
- `_operations`, `_operation_schemas`: connectors (`apis.<name>.operations`) and the checks of their
  schemas and URL templates.
- `_document`: `api_document(api)`, the one place an API's document comes from (its `spec`, its
  operations, or both).
- `_toolsets`: `toolsets:`, endpoints of tools picked from several APIs.
- `_code`: `code_mode:` and the limits on one script.
- `_lint`: `lint:`, severities, rules turned off, findings ignored.
- `_store`: `store:`, the store's URL as every command opens it.
- `_telemetry`: `telemetry:`, OpenTelemetry's endpoint, headers and sampling.
"""

from ._access import check_access_names as check_access_names
from ._access import is_pattern as is_pattern
from ._auth import MIN_STORE_KEY as MIN_STORE_KEY
from ._code import CodeModeConfig as CodeModeConfig
from ._code import code_mode_setting as code_mode_setting
from ._document import api_document as api_document
from ._document import fetch_rules as fetch_rules
from ._document import operations_document as operations_document
from ._front import ClaimRule as ClaimRule
from ._front import OAuthServerConfig as OAuthServerConfig
from ._front import UpstreamConfig as UpstreamConfig
from ._front import first_match as first_match
from ._grant import CALLBACK_PATH as CALLBACK_PATH
from ._grant import GrantConfig as GrantConfig
from ._grant import GrantType as GrantType
from ._lint import LintConfig as LintConfig
from ._lint import LintIgnore as LintIgnore
from ._model import AUTH_TYPES as AUTH_TYPES
from ._model import BINDING_LOCATIONS as BINDING_LOCATIONS
from ._model import DEFAULT_ANSWER_TOKENS as DEFAULT_ANSWER_TOKENS
from ._model import DEFAULT_APPROVAL_EXPIRE as DEFAULT_APPROVAL_EXPIRE
from ._model import DEFAULT_APPROVAL_WAIT as DEFAULT_APPROVAL_WAIT
from ._model import DEFAULT_STORE as DEFAULT_STORE
from ._model import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from ._model import MAX_REDIRECTS as MAX_REDIRECTS
from ._model import AdminConfig as AdminConfig
from ._model import AnswersConfig as AnswersConfig
from ._model import ApiConfig as ApiConfig
from ._model import ApprovalBy as ApprovalBy
from ._model import ApprovalsConfig as ApprovalsConfig
from ._model import ApprovalSend as ApprovalSend
from ._model import AuthConfig as AuthConfig
from ._model import AuthType as AuthType
from ._model import CallsConfig as CallsConfig
from ._model import ClientConfig as ClientConfig
from ._model import Config as Config
from ._model import EgressConfig as EgressConfig
from ._model import FilesConfig as FilesConfig
from ._model import IdempotencyConfig as IdempotencyConfig
from ._model import IntrospectionConfig as IntrospectionConfig
from ._model import LimitsConfig as LimitsConfig
from ._model import OAuthConfig as OAuthConfig
from ._model import OperationConfig as OperationConfig
from ._model import ParameterConfig as ParameterConfig
from ._model import SearchIndexConfig as SearchIndexConfig
from ._model import SearchMode as SearchMode
from ._model import TelemetryConfig as TelemetryConfig
from ._model import ToolConfig as ToolConfig
from ._model import WebhookConfig as WebhookConfig
from ._model import WebhooksConfig as WebhooksConfig
from ._reader import config_from_data as config_from_data
from ._reader import load_config as load_config
from ._reader import single_api_config as single_api_config
from ._rules import AuditConfig as AuditConfig
from ._rules import Rate as Rate
from ._rules import RateLimits as RateLimits
from ._rules import ToolAccess as ToolAccess
from ._rules import parse_rate as parse_rate
from ._schema import SCHEMA_FILE as SCHEMA_FILE
from ._schema import config_schema as config_schema
from ._secrets import Secret as Secret
from ._secrets import looks_like_secret as looks_like_secret
from ._tool_names import api_toolset as api_toolset
from ._tool_names import check_tool_names as check_tool_names
from ._toolsets import ToolsetConfig as ToolsetConfig
from ._toolsets import ToolsetTool as ToolsetTool
from ._toolsets import check_toolset_tools as check_toolset_tools
from ._units import parse_duration as parse_duration

__all__ = [
    "AUTH_TYPES",
    "BINDING_LOCATIONS",
    "CALLBACK_PATH",
    "DEFAULT_ANSWER_TOKENS",
    "DEFAULT_APPROVAL_EXPIRE",
    "DEFAULT_APPROVAL_WAIT",
    "DEFAULT_STORE",
    "DEFAULT_TIMEOUT",
    "MAX_REDIRECTS",
    "MIN_STORE_KEY",
    "SCHEMA_FILE",
    "AdminConfig",
    "AnswersConfig",
    "ApiConfig",
    "ApprovalBy",
    "ApprovalSend",
    "ApprovalsConfig",
    "AuditConfig",
    "AuthConfig",
    "AuthType",
    "CallsConfig",
    "ClaimRule",
    "ClientConfig",
    "CodeModeConfig",
    "Config",
    "EgressConfig",
    "FilesConfig",
    "GrantConfig",
    "GrantType",
    "IdempotencyConfig",
    "IntrospectionConfig",
    "LimitsConfig",
    "LintConfig",
    "LintIgnore",
    "OAuthConfig",
    "OAuthServerConfig",
    "OperationConfig",
    "ParameterConfig",
    "Rate",
    "RateLimits",
    "SearchIndexConfig",
    "SearchMode",
    "Secret",
    "TelemetryConfig",
    "ToolAccess",
    "ToolConfig",
    "ToolsetConfig",
    "ToolsetTool",
    "UpstreamConfig",
    "WebhookConfig",
    "WebhooksConfig",
    "api_document",
    "api_toolset",
    "check_access_names",
    "check_tool_names",
    "check_toolset_tools",
    "code_mode_setting",
    "config_from_data",
    "config_schema",
    "fetch_rules",
    "first_match",
    "is_pattern",
    "load_config",
    "looks_like_secret",
    "operations_document",
    "parse_duration",
    "parse_rate",
    "single_api_config",
]
