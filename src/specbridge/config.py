"""`specbridge.yaml`: the model and its validation. Every error names the file, the key, and what is valid.

```yaml
apis:
  orders:
    spec: ./orders.openapi.yaml        # relative to this file
    base_url: https://api.example.com/v1
    auth: {type: bearer, secret: env:ORDERS_TOKEN}
    timeout: 15
    egress: {allow: [], redirects: 0}
    include_deprecated: false
    search: auto                       # on | off | auto
    tools:
      refundOrder: {requires_approval: true, bindings: {body.currency: EUR}}
      legacyExport: {disabled: true}
clients:
  support-bot: {key_sha256: "…", apis: [orders], bindings: {orders: {path.shopId: shop-1}}}
store: sqlite:///var/lib/specbridge/state.db
lint: {severity: {width: error}, disable: [catalogue-size], ignore: [{rule: collision, tool: updateUser}]}
```
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ._errors import ConfigError, ErrorCode
from .tools import ConvertOptions, Tool, ToolOverride

AuthType = Literal["none", "bearer", "basic", "header", "query", "cookie"]
SearchMode = Literal["on", "off", "auto"]
AUTH_TYPES: tuple[AuthType, ...] = ("none", "bearer", "basic", "header", "query", "cookie")
BINDING_LOCATIONS = ("path", "query", "header", "cookie", "body")
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 15.0
DEFAULT_STORE = "sqlite:///specbridge-state.db"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_API_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class Secret:
    """A secret referenced as `env:NAME` or `file:PATH`; read only when needed, never printed."""

    reference: str

    def reveal(self) -> str:
        kind, _, target = self.reference.partition(":")
        if kind == "env":
            value = os.environ.get(target)
            if value is None:
                raise ConfigError(f"the environment variable {target} is not set", source="secret")
            return value
        try:
            return Path(target).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ConfigError(
                f"the secret file {target} cannot be read ({error.strerror})", source="secret"
            ) from None

    def __repr__(self) -> str:
        return f"Secret({self.reference.partition(':')[0]}:…)"


@dataclass(frozen=True, slots=True)
class AuthConfig:
    type: AuthType = "none"
    name: str = ""  # header, query or cookie name for those types
    secret: Secret | None = None
    secrets: Mapping[str, Secret] = field(default_factory=dict)  # per-client secrets by secret id


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


@dataclass(frozen=True, slots=True)
class ApiConfig:
    name: str
    spec: str
    base_url: str | None = None
    auth: AuthConfig = field(default_factory=AuthConfig)
    timeout: float = DEFAULT_TIMEOUT
    egress: EgressConfig = field(default_factory=EgressConfig)
    include_deprecated: bool = False
    search: SearchMode = "auto"
    tools: Mapping[str, ToolConfig] = field(default_factory=dict)

    def tool_settings(self, tool: Tool) -> ToolConfig | None:
        """`tools.<name>` for this tool: keyed by its derived name, its final name or its operationId."""
        for key in (tool.default_name, tool.name, tool.operation.operation_id or ""):
            if key and key in self.tools:
                return self.tools[key]
        return None

    def convert_options(self) -> ConvertOptions:
        return ConvertOptions(
            include_deprecated=self.include_deprecated,
            overrides={
                name: ToolOverride(name=tool.name, description=tool.description, disabled=tool.disabled)
                for name, tool in self.tools.items()
            },
        )


@dataclass(frozen=True, slots=True)
class ClientConfig:
    id: str
    key_sha256: str
    apis: tuple[str, ...]
    bindings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # api -> binding -> value
    secrets: Mapping[str, str] = field(default_factory=dict)  # api -> secret id


@dataclass(frozen=True, slots=True)
class LintIgnore:
    """One `lint.ignore` entry: findings of `rule` (for this tool / argument / under this pointer)."""

    rule: str
    tool: str | None = None
    argument: str | None = None
    pointer: str | None = None


@dataclass(frozen=True, slots=True)
class LintConfig:
    """`lint:` — severities by rule (error, warning, info, off), rules turned off, findings ignored."""

    severity: Mapping[str, str] = field(default_factory=dict)
    disable: tuple[str, ...] = ()
    ignore: tuple[LintIgnore, ...] = ()


@dataclass(frozen=True, slots=True)
class Config:
    source: str
    apis: Mapping[str, ApiConfig]
    clients: Mapping[str, ClientConfig] = field(default_factory=dict)
    store: str = DEFAULT_STORE
    lint: LintConfig = field(default_factory=LintConfig)

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


def load_config(path: str | os.PathLike[str]) -> Config:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file", source=source, code=ErrorCode.CONFIG_NOT_FOUND) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"cannot be read ({error})", source=source, code=ErrorCode.CONFIG_NOT_FOUND
        ) from None
    from ._errors import DocumentError
    from .document._parse import parse_text

    try:
        data = parse_text(text, source=source)
    except DocumentError as error:
        raise ConfigError(
            error.message.removeprefix(source).lstrip(":"), source=source, code=ErrorCode.CONFIG_SYNTAX
        ) from None
    return config_from_data(data, source=source, base_dir=Path(path).resolve().parent)


def config_from_data(data: Any, *, source: str, base_dir: Path | None = None) -> Config:
    reader = _Reader(source, base_dir or Path.cwd())
    return reader.config(data)


def single_api_config(spec: str, base_url: str | None, **settings: Any) -> Config:
    """The config `specbridge serve SPEC --base-url URL` runs on: one API named after nothing else."""
    api = ApiConfig(name="api", spec=spec, base_url=base_url, **settings)
    return Config(source="<command line>", apis={"api": api})


class _Reader:
    def __init__(self, source: str, base_dir: Path) -> None:
        self.source = source
        self.base_dir = base_dir

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(message, source=self.source, key=key)

    def mapping(self, value: Any, key: str, allowed: tuple[str, ...] | None = None) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, "must be a mapping")
        if allowed is not None:
            unknown = sorted(set(value) - set(allowed))
            if unknown:
                raise self.fail(
                    f"{key}.{unknown[0]}" if key else unknown[0],
                    f"unknown key; valid keys here are: {', '.join(allowed)}",
                )
        return value

    def boolean(self, value: Any, key: str, default: bool = False) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, "must be true or false")
        return value

    def number(self, value: Any, key: str, default: float, low: float, high: float) -> float:
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not low < value <= high:
            raise self.fail(key, f"must be a number of seconds above {low:g} and at most {high:g}")
        return float(value)

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty string")
        return value.strip()

    def secret(self, value: Any, key: str) -> Secret:
        if not isinstance(value, str) or not value.startswith(("env:", "file:")) or len(value) < 5:
            raise self.fail(key, "must be `env:NAME` or `file:PATH`; secrets are never written in the config")
        kind, _, target = value.partition(":")
        if kind == "file" and not Path(target).is_absolute():
            value = f"file:{(self.base_dir / target).resolve()}"
        return Secret(value)

    def config(self, data: Any) -> Config:
        top = self.mapping(data, "", ("apis", "clients", "store", "lint"))
        # A config may hold only `lint:` settings; the commands that need an API say so (Config.api).
        apis_raw = self.mapping(top.get("apis"), "apis")
        apis = {str(name): self.api(str(name), value) for name, value in apis_raw.items()}
        clients_raw = self.mapping(top.get("clients"), "clients")
        clients = {str(name): self.client(str(name), value, apis) for name, value in clients_raw.items()}
        store = top.get("store", DEFAULT_STORE)
        if not isinstance(store, str) or not store.startswith(
            ("sqlite://", "redis://", "rediss://", "postgresql://", "postgres://")
        ):
            raise self.fail("store", "must be a sqlite:///PATH, redis://… or postgresql://… URL")
        lint = self.lint(top.get("lint"), "lint")
        return Config(source=self.source, apis=apis, clients=clients, store=store, lint=lint)

    def lint(self, value: Any, key: str) -> LintConfig:
        raw = self.mapping(value, key, ("severity", "disable", "ignore"))
        levels = ("error", "warning", "info", "note", "off")
        severity = self.mapping(raw.get("severity"), f"{key}.severity")
        for rule, level in severity.items():
            if level not in levels:
                raise self.fail(f"{key}.severity.{rule}", f"must be one of: {', '.join(levels)}")
        disable = raw.get("disable", [])
        if not isinstance(disable, list) or not all(isinstance(rule, str) and rule for rule in disable):
            raise self.fail(f"{key}.disable", "must be a list of rule ids, e.g. [catalogue-size]")
        entries = raw.get("ignore", [])
        if not isinstance(entries, list):
            raise self.fail(f"{key}.ignore", "must be a list of {rule, tool?, argument?, pointer?} entries")
        ignore = []
        for index, entry in enumerate(entries):
            where = f"{key}.ignore[{index}]"
            item = self.mapping(entry, where, ("rule", "tool", "argument", "pointer"))
            rule = self.string(item.get("rule"), f"{where}.rule")
            extra = {name: item.get(name) for name in ("tool", "argument", "pointer")}
            for name, given in extra.items():
                if given is not None and not isinstance(given, str):
                    raise self.fail(f"{where}.{name}", "must be a string")
            pointer = extra["pointer"]
            if pointer is not None and pointer and not pointer.startswith("/"):
                raise self.fail(
                    f"{where}.pointer", "must be a JSON pointer starting with `/`, e.g. /paths/~1users"
                )
            ignore.append(
                LintIgnore(rule=rule, tool=extra["tool"], argument=extra["argument"], pointer=pointer)
            )
        return LintConfig(
            severity={str(rule): str(level) for rule, level in severity.items()},
            disable=tuple(disable),
            ignore=tuple(ignore),
        )

    def api(self, name: str, value: Any) -> ApiConfig:
        key = f"apis.{name}"
        if not _API_NAME.match(name):
            raise self.fail(key, "an API name may use letters, digits, `_` and `-` (it becomes /<name>/mcp)")
        raw = self.mapping(
            value,
            key,
            ("spec", "base_url", "auth", "timeout", "egress", "include_deprecated", "search", "tools"),
        )
        spec = self.string(raw.get("spec"), f"{key}.spec")
        if not spec.startswith(("http://", "https://")) and not Path(spec).is_absolute():
            spec = str((self.base_dir / spec).resolve())
        base_url = raw.get("base_url")
        if base_url is not None:
            base_url = self.string(base_url, f"{key}.base_url")
            if not base_url.startswith(("https://", "http://")):
                raise self.fail(f"{key}.base_url", "must be an http:// or https:// URL")
            self.public_base_url(base_url, raw.get("egress"), key)
        search = raw.get("search", "auto")
        if search not in ("on", "off", "auto"):
            raise self.fail(f"{key}.search", "must be on, off or auto")
        tools_raw = self.mapping(raw.get("tools"), f"{key}.tools")
        return ApiConfig(
            name=name,
            spec=spec,
            base_url=base_url,
            auth=self.auth(raw.get("auth"), f"{key}.auth"),
            timeout=self.number(raw.get("timeout"), f"{key}.timeout", DEFAULT_TIMEOUT, 0, 3600),
            egress=self.egress(raw.get("egress"), f"{key}.egress"),
            include_deprecated=self.boolean(raw.get("include_deprecated"), f"{key}.include_deprecated"),
            search=search,
            tools={
                str(tool): self.tool(str(tool), entry, f"{key}.tools.{tool}")
                for tool, entry in tools_raw.items()
            },
        )

    def public_base_url(self, base_url: str, egress: Any, key: str) -> None:
        """The egress policy's check of the base URL (public hosts only, unless `egress.allow`)."""
        from ._errors import RequestRefused
        from .call._egress import check_base_url  # config sits above call/; imported late

        try:
            check_base_url(base_url, self.egress(egress, f"{key}.egress").allow)
        except RequestRefused as error:
            raise self.fail(
                f"{key}.base_url", f"{error.message} (list the host:port under egress.allow to permit it)"
            ) from None

    def auth(self, value: Any, key: str) -> AuthConfig:
        raw = self.mapping(value, key, ("type", "name", "secret", "secrets"))
        if not raw:
            return AuthConfig()
        kind = raw.get("type", "none")
        if kind not in AUTH_TYPES:
            raise self.fail(f"{key}.type", f"must be one of: {', '.join(AUTH_TYPES)}")
        name = raw.get("name", "")
        if kind in ("header", "query", "cookie"):
            name = self.string(name, f"{key}.name")
        elif name:
            raise self.fail(f"{key}.name", f"is only used with type header, query or cookie, not {kind}")
        secrets_raw = self.mapping(raw.get("secrets"), f"{key}.secrets")
        secrets = {str(sid): self.secret(ref, f"{key}.secrets.{sid}") for sid, ref in secrets_raw.items()}
        secret = self.secret(raw["secret"], f"{key}.secret") if raw.get("secret") is not None else None
        if kind != "none" and secret is None and not secrets:
            raise self.fail(f"{key}.secret", f"type {kind} needs a secret (`env:NAME` or `file:PATH`)")
        return AuthConfig(type=kind, name=name, secret=secret, secrets=secrets)

    def egress(self, value: Any, key: str) -> EgressConfig:
        raw = self.mapping(value, key, ("allow", "redirects"))
        allow = raw.get("allow", [])
        if not isinstance(allow, list) or not all(isinstance(item, str) and item for item in allow):
            raise self.fail(f"{key}.allow", 'must be a list of "host" or "host:port" strings')
        redirects = raw.get("redirects", 0)
        if (
            isinstance(redirects, bool)
            or not isinstance(redirects, int)
            or not 0 <= redirects <= MAX_REDIRECTS
        ):
            raise self.fail(f"{key}.redirects", f"must be a whole number from 0 to {MAX_REDIRECTS}")
        return EgressConfig(allow=tuple(allow), redirects=redirects)

    def tool(self, name: str, value: Any, key: str) -> ToolConfig:
        raw = self.mapping(
            value, key, ("name", "description", "disabled", "requires_approval", "bindings", "timeout")
        )
        new_name = raw.get("name")
        if new_name is not None and (not isinstance(new_name, str) or not _NAME.match(new_name)):
            raise self.fail(f"{key}.name", "must be 1-128 letters, digits, `_`, `.` or `-`")
        description = raw.get("description")
        if description is not None:
            description = self.string(description, f"{key}.description")
        timeout = raw.get("timeout")
        return ToolConfig(
            name=new_name,
            description=description,
            disabled=self.boolean(raw.get("disabled"), f"{key}.disabled"),
            requires_approval=self.boolean(raw.get("requires_approval"), f"{key}.requires_approval"),
            bindings=self.bindings(raw.get("bindings"), f"{key}.bindings"),
            timeout=None
            if timeout is None
            else self.number(timeout, f"{key}.timeout", DEFAULT_TIMEOUT, 0, 3600),
        )

    def bindings(self, value: Any, key: str) -> dict[str, Any]:
        raw = self.mapping(value, key)
        for target in raw:
            location, _, name = str(target).partition(".")
            if location not in BINDING_LOCATIONS or not name:
                raise self.fail(
                    f"{key}.{target}",
                    "a binding is `<location>.<name>` with location path, query, header, cookie or body "
                    "(nested body fields with `/`, e.g. body.address/city)",
                )
        return {str(target): bound for target, bound in raw.items()}

    def client(self, name: str, value: Any, apis: Mapping[str, ApiConfig]) -> ClientConfig:
        key = f"clients.{name}"
        raw = self.mapping(value, key, ("key_sha256", "apis", "bindings", "secrets"))
        digest = raw.get("key_sha256")
        if not isinstance(digest, str) or not _SHA256.match(digest.lower()):
            raise self.fail(
                f"{key}.key_sha256", "must be the key's SHA-256 as 64 hex digits (`specbridge keys new`)"
            )
        allowed = raw.get("apis", [])
        if not isinstance(allowed, list) or not all(isinstance(api, str) for api in allowed):
            raise self.fail(f"{key}.apis", "must be a list of API names")
        for api in allowed:
            if api not in apis:
                raise self.fail(
                    f"{key}.apis", f"names {api!r}, which is not under `apis` ({', '.join(apis)})"
                )
        bindings_raw = self.mapping(raw.get("bindings"), f"{key}.bindings")
        bindings = {}
        for api, entries in bindings_raw.items():
            if api not in apis:
                raise self.fail(f"{key}.bindings.{api}", f"is not an API under `apis` ({', '.join(apis)})")
            bindings[str(api)] = self.bindings(entries, f"{key}.bindings.{api}")
        secrets_raw = self.mapping(raw.get("secrets"), f"{key}.secrets")
        secrets = {}
        for api, secret_id in secrets_raw.items():
            if api not in apis or not isinstance(secret_id, str) or secret_id not in apis[api].auth.secrets:
                raise self.fail(
                    f"{key}.secrets.{api}",
                    "must name a secret id listed under that API's `auth.secrets`",
                )
            secrets[str(api)] = secret_id
        return ClientConfig(
            id=name, key_sha256=digest.lower(), apis=tuple(allowed), bindings=bindings, secrets=secrets
        )
