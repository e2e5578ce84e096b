"""`specbridge.yaml` as frozen dataclasses: what `lint/`, `call/` and `gateway/` read as plain data.

```yaml
apis:
  orders:
    spec: ./orders.openapi.yaml        # relative to this file
    base_url: https://api.example.com/v1
    auth: {type: bearer, secret: env:ORDERS_TOKEN}
    timeout: 15
    egress: {allow: [], redirects: 0}
    search: auto                       # on | off | auto
    answers: {max_tokens: 20000, select: false}
    tools:
      refundOrder: {requires_approval: true, bindings: {body.currency: EUR}}
      legacyExport: {disabled: true}
clients:
  support-bot: {key_sha256: "…", apis: [orders], bindings: {orders: {path.shopId: shop-1}}}
  robot-7: {apis: [orders]}           # an OAuth client: a token whose client_id (else sub) is robot-7
admins:
  alice: {key_sha256: "…"}
approvals: {wait: 50, expire: 24h, by: operator, webhook: {url: https://hooks.example/sb, secret: env:WH}}
store: sqlite:///var/lib/specbridge/state.db
lint: {severity: {width: error}, disable: [catalogue-size], ignore: [{rule: collision, tool: updateUser}]}
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from .._errors import ConfigError
from ..tools import ConvertOptions, Tool, ToolOverride
from ._code import CodeModeConfig
from ._front import OAuthServerConfig
from ._grant import GrantConfig
from ._lint import LintConfig
from ._rules import AuditConfig, RateLimits, ToolAccess
from ._secrets import Secret
from ._toolsets import ToolsetConfig

AuthType = Literal[
    "none", "bearer", "basic", "header", "query", "cookie",
    "oauth2_client_credentials", "oauth2_refresh_token", "oauth2_authorization_code",
    "oauth2_token_exchange", "oauth2_jwt_bearer",
]  # fmt: skip
SearchMode = Literal["on", "off", "auto"]
SemanticMode = Literal["auto", "on", "off"]
AUTH_TYPES: tuple[AuthType, ...] = get_args(AuthType)
BINDING_LOCATIONS = ("path", "query", "header", "cookie", "body")
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 15.0
# The store next to the config when `store:` is not set: the same URL as `specbridge.store.DEFAULT_STORE`
# (config/ may not import store/; a test keeps the two equal). The reader makes its path absolute.
DEFAULT_STORE = "sqlite:///.specbridge/state.db"
DEFAULT_APPROVAL_WAIT = 50.0
DEFAULT_APPROVAL_EXPIRE = 86400.0
DEFAULT_REPEAT_WINDOW = 900.0  # `approvals.repeat_window`: a sent approval answers identical calls
ApprovalBy = Literal["operator", "client"]
# When an approved call is sent: as soon as it is approved (by the gateway, even when the agent stopped
# waiting), or only when the agent calls again.
ApprovalSend = Literal["on_answer", "on_retry"]
IdempotencyTools = Literal["auto", "all", "none"]
DEFAULT_IDEMPOTENCY_TTL = 86400.0
DEFAULT_CALL_WAIT = 50.0
DEFAULT_ANSWER_TOKENS = 20_000


@dataclass(frozen=True, slots=True)
class AnswersConfig:
    """`apis.<name>.answers` (and `tools.<name>.answers`, over the API's key by key): what a model is
    handed of one answer. `max_tokens`: the budget (estimated tokens) of one answer's text; `select`:
    tools whose answer is JSON take a `fields` argument (docs/calls.md, "Answers")."""

    max_tokens: int = DEFAULT_ANSWER_TOKENS
    select: bool = False

    def merged(self, raw: Mapping[str, Any]) -> AnswersConfig:
        """These settings with `raw`'s keys on top (a key left out or null keeps this one's value)."""
        return replace(self, **{key: value for key, value in raw.items() if value is not None})


@dataclass(frozen=True, slots=True)
class AuthConfig:
    type: AuthType = "none"
    name: str = ""  # header, query or cookie name for those types
    secret: Secret | None = None
    secrets: Mapping[str, Secret] = field(default_factory=dict)  # per-client secrets by secret id
    grant: GrantConfig | None = None  # the `oauth2_*` types: how the token is fetched (config/_grant.py)


@dataclass(frozen=True, slots=True)
class EgressConfig:
    allow: tuple[str, ...] = ()  # "127.0.0.1:8080", "10.0.0.5", "internal.example:443"
    redirects: int = 0


@dataclass(frozen=True, slots=True)
class ToolConfig:
    name: str | None = None
    description: str | None = None
    disabled: bool = False
    requires_approval: bool = False
    bindings: Mapping[str, Any] = field(default_factory=dict)  # "body.currency" -> "EUR"
    timeout: float | None = None
    answers: AnswersConfig | None = None  # the API's `answers` with this tool's keys on top; None: the API's


@dataclass(frozen=True, slots=True)
class ParameterConfig:
    """One parameter of an operation described in the config (`parameters.<location>[i]`)."""

    name: str
    location: Literal["path", "query", "header"]
    description: str = ""
    required: bool = False
    type: Literal["string", "number", "integer", "boolean"] = "string"
    enum: tuple[Any, ...] | None = None
    default: Any = None


@dataclass(frozen=True, slots=True)
class OperationConfig:
    """`apis.<name>.operations.<id>`: an endpoint with no document, described in the config. `path` is
    the template under the API's base URL (`{name}` a path parameter); its per-tool keys live in the
    API's `tools` under `id`, as for any tool. `request`/`response`: JSON Schemas, or None."""

    id: str
    method: str  # upper case
    path: str
    description: str = ""
    parameters: tuple[ParameterConfig, ...] = ()
    request: Any = None  # without one, no body is sent (even for a POST)
    response: Any = None


# What a client's webhook can subscribe to (`clients.<id>.webhook.events`; default the first).
CLIENT_EVENTS = ("call.completed", "approval.requested", "approval.answered")


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """`approvals.webhook`: where approvals are announced, signed with `secrets` (the first signs the
    newest way; two while rotating, so receivers holding either one accept)."""

    url: str
    secrets: tuple[Secret, ...]
    egress: EgressConfig = field(default_factory=EgressConfig)
    events: tuple[str, ...] = ()  # `clients.<id>.webhook.events`; an approvals webhook gets its own events


@dataclass(frozen=True, slots=True)
class ApprovalsConfig:
    """`approvals:` (top level, or `apis.<name>.approvals` overriding it key by key). Seconds."""

    wait: float = DEFAULT_APPROVAL_WAIT
    expire: float = DEFAULT_APPROVAL_EXPIRE
    by: ApprovalBy = "operator"
    webhook: WebhookConfig | None = None
    send: ApprovalSend = "on_answer"
    repeat_window: float = DEFAULT_REPEAT_WINDOW  # after a send: an identical call gets its outcome


@dataclass(frozen=True, slots=True)
class IdempotencyConfig:
    """`idempotency:` (top level, or `apis.<name>.idempotency` overriding it key by key). `tools`: which
    tools take an `idempotency_key` argument: `auto` (those whose operation is not idempotent, POST and
    PATCH, or declares an idempotency key of its own), `all`, `none`. `ttl` in seconds."""

    ttl: float = DEFAULT_IDEMPOTENCY_TTL
    tools: IdempotencyTools = "auto"


@dataclass(frozen=True, slots=True)
class CallsConfig:
    """`calls:` (top level, or `apis.<name>.calls` key by key). With `long: true` a call still running
    after `wait` seconds goes on in the background and the agent gets `call-pending` with its id."""

    wait: float = DEFAULT_CALL_WAIT
    long: bool = False


@dataclass(frozen=True, slots=True)
class FilesConfig:
    """`files:`: uploads through `POST /files` and binary answers kept for the client, in the store.
    `max_bytes`: the largest file (25 MB); `ttl`: seconds a file is kept (24 h); `folder`: an absolute
    path (made from the config's folder) where the bytes are kept instead of the store, which then
    holds only each file's record (owner, size, type, name, expiry)."""

    max_bytes: int = 25 * 1000 * 1000
    ttl: float = 86400.0
    folder: str | None = None


@dataclass(frozen=True, slots=True)
class TelemetryConfig:
    """`telemetry:`: OpenTelemetry traces and metrics over OTLP/HTTP. `endpoint` None: the standard
    `OTEL_EXPORTER_OTLP_*` variables decide (off when they are unset)."""

    endpoint: str | None = None
    headers: Mapping[str, Secret] = field(default_factory=dict)
    service_name: str | None = None
    sample: float = 1.0
    metrics: bool = True


@dataclass(frozen=True, slots=True)
class WebhooksConfig:
    """`webhooks:`: the sender of every webhook. `lease`: seconds a delivery being attempted is hidden
    from other senders (and, after a crash, the longest it waits to be tried again); `timeout`: seconds
    one attempt may take, kept below `lease` so an attempt ends before anyone else may take it."""

    lease: float = 60.0
    timeout: float = 10.0


@dataclass(frozen=True, slots=True)
class AdminConfig:
    """`admins.<id>`: a person who may answer approvals (admin API, web page). Not a client key."""

    id: str
    key_sha256: str


@dataclass(frozen=True, slots=True)
class IntrospectionConfig:
    """`apis.<name>.oauth.introspection`: where tokens are checked instead (RFC 7662), and how the
    gateway signs in there (HTTP Basic, the way RFC 7662 shows it)."""

    url: str
    client_id: str
    secret: Secret


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """`apis.<name>.oauth`: the API also takes OAuth 2.1 access tokens from this issuer (the gateway is a
    resource server, as the MCP specification makes an HTTP server). Tokens are JWTs checked against the
    issuer's JWKS (`jwks_uri`, or the one its metadata names), or checked by `introspection`.
    `audience`: the URL clients connect to, which tokens must name in `aud` (when unset, the URL of the
    request on a loopback bind). `scopes_supported`: what clients are told to ask for, and what every
    token must carry. A token's `client_id` (else `sub`) naming a `clients.<id>` is that client;
    `allow_unknown_clients` lets any other valid token in, with the API's defaults."""

    issuer: str
    audience: str | None = None
    jwks_uri: str | None = None
    introspection: IntrospectionConfig | None = None
    scopes_supported: tuple[str, ...] = ()
    allow_unknown_clients: bool = False
    scopes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # scope -> the tools it gives
    front: bool = False  # `issuer` is this gateway's own `oauth_server` (its tokens checked here)
    front_key: Secret | None = None  # then: the store_key its signing key is derived from

    @property
    def advertised_scopes(self) -> tuple[str, ...]:
        """What clients are told to ask for: `scopes_supported`, then the scopes that give tools."""
        return tuple(dict.fromkeys((*self.scopes_supported, *self.scopes)))


@dataclass(frozen=True, slots=True)
class ApiConfig:
    name: str
    spec: str  # a path or URL; "" when the API has only `operations`
    base_url: str | None = None
    auth: AuthConfig = field(default_factory=AuthConfig)
    timeout: float = DEFAULT_TIMEOUT
    egress: EgressConfig = field(default_factory=EgressConfig)
    include_deprecated: bool = False
    description_max: int | None = None  # tool descriptions shortened to this many characters
    provenance: bool = True  # where each id comes from: descriptions, search, lint (docs/tools.md)
    search: SearchMode = "auto"
    tools: Mapping[str, ToolConfig] = field(default_factory=dict)
    approvals: ApprovalsConfig = field(default_factory=ApprovalsConfig)  # the top level's, merged
    idempotency: IdempotencyConfig = field(default_factory=IdempotencyConfig)  # the top level's, merged
    calls: CallsConfig = field(default_factory=CallsConfig)  # the top level's, merged
    answers: AnswersConfig = field(default_factory=AnswersConfig)
    oauth: OAuthConfig | None = None  # OAuth access tokens accepted besides client keys
    source: str = "<config>"  # the file this API was read from, for errors found later (tool names)
    ref_dirs: tuple[str, ...] = ()  # folders besides the document's own that its file $refs may read
    operations: tuple[OperationConfig, ...] = ()  # endpoints described in the config (beside `spec`)
    rate_limits: RateLimits = field(default_factory=RateLimits)  # `apis.<name>.limits`, its own only
    code_mode: CodeModeConfig = field(default_factory=CodeModeConfig)  # on: two tools, a script (codemode/)

    def tool_settings(self, tool: Tool) -> ToolConfig | None:
        """`tools.<name>` for this tool: keyed by its derived name, its final name or its operationId."""
        for key in (tool.default_name, tool.name, tool.operation.operation_id or ""):
            if key and key in self.tools:
                return self.tools[key]
        return None

    def convert_options(self) -> ConvertOptions:
        return ConvertOptions(
            include_deprecated=self.include_deprecated,
            description_max=self.description_max,
            provenance=self.provenance,
            overrides={
                name: ToolOverride(name=tool.name, description=tool.description, disabled=tool.disabled)
                for name, tool in self.tools.items()
            },
        )


@dataclass(frozen=True, slots=True)
class ClientConfig:
    id: str
    key_sha256: str  # "" for a client that only signs in with OAuth tokens (`apis.<name>.oauth`)
    apis: tuple[str, ...]
    bindings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # api -> binding -> value
    secrets: Mapping[str, str] = field(default_factory=dict)  # api -> secret id
    webhook: WebhookConfig | None = None  # where this client's events go (`events`: CLIENT_EVENTS)
    tools: Mapping[str, ToolAccess] = field(default_factory=dict)  # api -> the tools it may use
    rate_limits: RateLimits = field(default_factory=RateLimits)  # `clients.<id>.limits`
    display_name: str = ""  # what people know it by (the connect pages); the id when not given

    @property
    def shown_name(self) -> str:
        return self.display_name or self.id


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    """`limits:` at the top level: what one call's arguments may carry (checked before any schema work;
    call.CallLimits has the same fields and defaults) and how many sessions one client may hold per API."""

    max_bytes: int = 4 * 1024 * 1024
    max_items: int = 10_000
    max_nodes: int = 100_000
    max_string: int = 1024 * 1024
    max_depth: int = 64
    sessions_per_client: int = 64


@dataclass(frozen=True, slots=True)
class SearchIndexConfig:
    """`search:` at the top level: how search mode ranks (see specbridge.search.SearchSettings)."""

    semantic: SemanticMode = "auto"
    model: str | None = None  # a folder holding the embedding model, instead of the extra's package
    cache: str | None = None  # where tool vectors are kept between starts; None: the user's cache, "": none


@dataclass(frozen=True, slots=True)
class Config:
    source: str
    apis: Mapping[str, ApiConfig]
    clients: Mapping[str, ClientConfig] = field(default_factory=dict)
    store: str = DEFAULT_STORE  # a sqlite:/// path is absolute once read (relative to the config's folder)
    store_key: Secret | None = None  # seals OAuth tokens toward the APIs in the store (config/_auth.py)
    lint: LintConfig = field(default_factory=LintConfig)
    admins: Mapping[str, AdminConfig] = field(default_factory=dict)
    approvals: ApprovalsConfig = field(default_factory=ApprovalsConfig)
    search: SearchIndexConfig = field(default_factory=SearchIndexConfig)
    code_mode: CodeModeConfig = field(default_factory=CodeModeConfig)  # the limits on one script
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    idempotency: IdempotencyConfig = field(default_factory=IdempotencyConfig)
    calls: CallsConfig = field(default_factory=CallsConfig)
    files: FilesConfig = field(default_factory=FilesConfig)
    webhooks: WebhooksConfig = field(default_factory=WebhooksConfig)
    rate_limits: RateLimits = field(default_factory=RateLimits)  # `limits.per_client`, `limits.per_tool`
    audit: AuditConfig = field(default_factory=AuditConfig)
    telemetry: TelemetryConfig = field(default_factory=TelemetryConfig)
    # Where handshake-era MCP sessions live: "store" (any instance serves them) or "memory" (`_store.py`)
    sessions: str = "memory"
    # Where each document's conversion is kept between starts (`tools.ConversionCache`); None: the
    # user's cache folder, "": nowhere
    cache: str | None = None
    toolsets: Mapping[str, ToolsetConfig] = field(default_factory=dict)  # `_toolsets.py`
    oauth_server: OAuthServerConfig | None = None  # the gateway's own authorization server (`_front.py`)

    def approvals_for(self, api: str | None = None) -> ApprovalsConfig:
        """The approval settings of an API (its `approvals:` over the top level's), or the top level's."""
        if api is not None and api in self.apis:
            return self.apis[api].approvals
        return self.approvals

    def api(self, name: str | None = None) -> ApiConfig:
        """The API called `name`, or the only one; a ConfigError saying which exist otherwise."""
        if not self.apis:
            raise ConfigError(
                "names no API; add one, e.g. `apis: {orders: {spec: ./orders.yaml}}`",
                source=self.source,
                key="apis",
            )
        if name is not None:
            if name not in self.apis:
                raise ConfigError(
                    f"no API named {name!r}; the config has {', '.join(self.apis)}",
                    source=self.source,
                    key="apis",
                )
            return self.apis[name]
        if len(self.apis) > 1:
            raise ConfigError(
                f"the config has several APIs ({', '.join(self.apis)}); name one with --api",
                source=self.source,
                key="apis",
            )
        return next(iter(self.apis.values()))
