"""Reading `specbridge.yaml`: parse, check against the shipped JSON Schema (shape, types, unknown keys),
then the rules a schema cannot say (paths relative to the file, a public base URL, secrets an API
lists, clients naming APIs that exist) while the frozen model is built."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._errors import ConfigError, DocumentError, ErrorCode, RequestRefused
from .._files import MAX_CONFIG_BYTES, FileTooLarge, read_bounded
from .._network import AllowEntry, check_base_url, parse_allow
from ..document import parse_text
from ._access import one_call_limits, read_access
from ._auth import read_auth, with_store_key
from ._code import read_code_mode
from ._document import read_spec
from ._lint import LintConfig, LintIgnore
from ._model import (
    DEFAULT_STORE,
    DEFAULT_TIMEOUT,
    AdminConfig,
    AnswersConfig,
    ApiConfig,
    ApprovalsConfig,
    CallsConfig,
    ClientConfig,
    Config,
    EgressConfig,
    FilesConfig,
    IdempotencyConfig,
    SearchIndexConfig,
    ToolConfig,
    WebhookConfig,
    WebhooksConfig,
)
from ._oauth import check_keyless_client, oauth_settings
from ._oauth_server import front_issuer, read_oauth_server
from ._operations import read_operations
from ._schema import key_path, validate
from ._secrets import secret_reference
from ._store import sessions_mode, store_url
from ._telemetry import read_telemetry
from ._toolsets import read_toolsets
from ._units import parse_duration, parse_size

MAX_APPROVAL_WAIT = 3600.0


def load_config(path: str | os.PathLike[str]) -> Config:
    source = str(path)
    try:
        text = read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileTooLarge as error:
        raise ConfigError(f"is {error}: not read", source=source, code=ErrorCode.CONFIG_TOO_LARGE) from None
    except FileNotFoundError:
        raise ConfigError("no such file", source=source, code=ErrorCode.CONFIG_NOT_FOUND) from None
    except UnicodeDecodeError as error:
        why = f"is not UTF-8 text (byte {error.start + 1} is not; a binary file?): a config is YAML or JSON"
        raise ConfigError(why, source=source, code=ErrorCode.CONFIG_INVALID) from None
    except OSError as error:
        why = "is a folder" if isinstance(error, IsADirectoryError) else f"cannot be read: {error.strerror}"
        raise ConfigError(why, source=source, code=ErrorCode.CONFIG_NOT_FOUND) from None
    try:
        data = parse_text(text, source=source)
    except DocumentError as error:
        raise ConfigError(
            error.message.removeprefix(source).lstrip(":"), source=source, code=ErrorCode.CONFIG_SYNTAX
        ) from None
    return config_from_data(data, source=source, base_dir=Path(path).resolve().parent)


def config_from_data(data: Any, *, source: str, base_dir: Path | None = None) -> Config:
    data = {} if data is None else data  # an empty file is a config with nothing in it
    validate(data, source)
    return _Builder(source, base_dir or Path.cwd()).config(data)


def single_api_config(spec: str, base_url: str | None, **settings: Any) -> Config:
    """The config `specbridge serve SPEC --base-url URL` runs on: one API named after nothing else."""
    if spec.strip() == "-":
        raise ConfigError(
            "`-` (stdin, where `serve` may speak MCP) cannot be served; name a file or a URL", source="SPEC"
        )
    api = ApiConfig(name="api", spec=spec, base_url=base_url, source="<command line>", **settings)
    return Config(source="<command line>", apis={"api": api})


class _Builder:
    """Builds the model from data the schema accepted; raises for what only code can check."""

    def __init__(self, source: str, base_dir: Path) -> None:
        self.source = source
        self.base_dir = base_dir
        self.toolsets: frozenset[str] = frozenset()
        self.front: str | None = None  # `oauth_server.issuer`: an API's `oauth` may name it

    def fail(self, key: list[str | int], message: str) -> ConfigError:
        return ConfigError(message, source=self.source, key=key_path(key))

    def config(self, top: Mapping[str, Any]) -> Config:
        # A config may hold only `lint:` settings; the commands that need an API say so (Config.api).
        approvals = self.approvals(top.get("approvals") or {}, ApprovalsConfig(), ["approvals"])
        idempotency = self.idempotency(top.get("idempotency") or {}, IdempotencyConfig())
        calls = self.calls(top.get("calls") or {}, CallsConfig())
        self.front = front_issuer(top)
        apis = {
            name: replace(
                self.api(name, value, approvals),
                idempotency=self.idempotency((value or {}).get("idempotency") or {}, idempotency),
                calls=self.calls((value or {}).get("calls") or {}, calls),
            )
            for name, value in (top.get("apis") or {}).items()
        }
        apis, store_key = with_store_key(top.get("store_key"), apis, self.fail, self.base_dir)
        self.toolsets = frozenset(top.get("toolsets") or ())  # a client may be let onto a toolset too
        clients = {name: self.client(name, value, apis) for name, value in (top.get("clients") or {}).items()}
        admins = {
            name: AdminConfig(id=name, key_sha256=(value or {}).get("key_sha256", "").lower())
            for name, value in (top.get("admins") or {}).items()
        }
        client_keys = {client.key_sha256 for client in clients.values() if client.key_sha256}
        for admin in admins.values():
            if admin.key_sha256 and admin.key_sha256 in client_keys:
                raise self.fail(
                    ["admins", admin.id, "key_sha256"],
                    "is also a client's key; an admin key must be its own (`specbridge keys new --admin`)",
                )
        front, apis = read_oauth_server(top.get("oauth_server"), apis=apis, clients=clients, admins=admins,
            store_key=store_key, duration=parse_duration, fail=self.fail, base_dir=self.base_dir)  # fmt: skip
        config = Config(
            source=self.source,
            oauth_server=front,
            apis=apis,
            clients=clients,
            store=self.store(top.get("store", DEFAULT_STORE)),
            store_key=store_key,
            lint=self.lint(top.get("lint") or {}),
            admins=admins,
            approvals=approvals,
            search=self.search(top.get("search") or {}),
            limits=one_call_limits(top.get("limits") or {}),
            idempotency=idempotency,
            calls=calls,
            files=self.files(top.get("files") or {}),
            webhooks=self.webhooks(top.get("webhooks") or {}),
            cache=None if top.get("cache") is None else self.cache_folder(top["cache"]),
            telemetry=read_telemetry(top.get("telemetry"), self.fail, self.base_dir),
        )
        config = replace(config, sessions=self.sessions(top.get("sessions"), config.store))
        config = read_toolsets(top, config, self.fail)  # endpoints composed across APIs
        config = read_code_mode(top, config, self.fail, duration=parse_duration, size=parse_size)
        return read_access(top, config, self.fail, self.base_dir)  # clients' tools, rate limits, audit

    def webhooks(self, raw: Mapping[str, Any]) -> WebhooksConfig:
        found = WebhooksConfig(**{name: parse_duration(value) for name, value in raw.items()})
        if found.timeout >= found.lease:
            raise self.fail(["webhooks", "timeout"], "must be below webhooks.lease (an attempt ends first)")
        return found

    def files(self, raw: Mapping[str, Any]) -> FilesConfig:
        found = FilesConfig()
        if raw.get("max_bytes") is not None:
            try:
                found = replace(found, max_bytes=parse_size(raw["max_bytes"]))
            except ValueError:
                raise self.fail(
                    ["files", "max_bytes"], "must be a size of at least 1 byte: 1000, 512kB, 25MB, 1GiB"
                ) from None
        if raw.get("ttl") is not None:
            found = replace(found, ttl=parse_duration(raw["ttl"]))
        if raw.get("folder") is not None:
            found = replace(found, folder=self.folder(raw["folder"]))
        return found

    def idempotency(self, raw: Mapping[str, Any], inherited: IdempotencyConfig) -> IdempotencyConfig:
        found = inherited
        if "ttl" in raw:
            found = replace(found, ttl=parse_duration(raw["ttl"]))
        if "tools" in raw:
            found = replace(found, tools=raw["tools"])
        return found

    def calls(self, raw: Mapping[str, Any], inherited: CallsConfig) -> CallsConfig:
        found = inherited
        if raw.get("wait") is not None:
            found = replace(found, wait=parse_duration(raw["wait"]))
        if raw.get("long") is not None:
            found = replace(found, long=bool(raw["long"]))
        return found

    def search(self, raw: Mapping[str, Any]) -> SearchIndexConfig:
        model, cache = raw.get("model"), raw.get("cache")
        return SearchIndexConfig(
            semantic=raw.get("semantic", "auto"),
            model=None if model is None else self.folder(model),
            cache=None if cache is None else ("" if not cache.strip() else self.folder(cache)),
        )

    def cache_folder(self, raw: str) -> str:
        """`cache:`: a folder relative to the config's, or "" (keep no conversions)."""
        return "" if not raw.strip() else self.folder(raw)

    def folder(self, path: str) -> str:
        """A folder named in the config, relative to the config's own folder."""
        folder = Path(path.strip()).expanduser()
        if not folder.is_absolute():
            folder = self.base_dir / folder
        return str(folder.resolve())

    def store(self, url: str) -> str:
        """`store:` as `config/_store` reads it (a relative SQLite path made absolute, the store's own
        query parameters checked)."""
        try:
            return store_url(url, self.base_dir)
        except ValueError as error:
            raise self.fail(["store"], str(error)) from None

    def sessions(self, value: object, store: str) -> str:
        try:
            return sessions_mode(value, store)
        except ValueError as error:
            raise self.fail(["sessions"], str(error)) from None

    def approvals(
        self, raw: Mapping[str, Any], inherited: ApprovalsConfig, key: list[str | int]
    ) -> ApprovalsConfig:
        """`approvals:` over `inherited`, key by key (a per-API `webhook` replaces the top level's)."""
        found = inherited
        if "wait" in raw:
            wait = parse_duration(raw["wait"])
            if wait > MAX_APPROVAL_WAIT:
                raise self.fail([*key, "wait"], "must be at most 3600 seconds (1h)")
            found = replace(found, wait=wait)
        if "expire" in raw:
            expire = parse_duration(raw["expire"])
            if expire <= 0:
                raise self.fail([*key, "expire"], "must be a duration above 0, e.g. 24h")
            found = replace(found, expire=expire)
        if "repeat_window" in raw:
            found = replace(found, repeat_window=parse_duration(raw["repeat_window"]))
        if "by" in raw:
            found = replace(found, by=raw["by"])
        if "send" in raw:
            found = replace(found, send=raw["send"])
        if raw.get("webhook"):
            found = replace(found, webhook=self.webhook(raw["webhook"], [*key, "webhook"]))
        return found

    def webhook(self, raw: Mapping[str, Any], key: list[str | int]) -> WebhookConfig:
        given = raw["secret"]
        references = [given] if isinstance(given, str) else list(given)
        egress = self.egress(raw.get("egress") or {}, [*key, "egress"])
        url = raw["url"].strip()
        try:
            check_base_url(url, [parse_allow(entry) for entry in egress.allow])
        except RequestRefused as error:
            raise self.fail(
                [*key, "url"], f"{error.message} (list the host:port under its egress.allow to permit it)"
            ) from None
        return WebhookConfig(
            url=url,
            secrets=tuple(secret_reference(ref, self.base_dir) for ref in references),
            egress=egress,
        )

    def lint(self, raw: Mapping[str, Any]) -> LintConfig:
        ignore = tuple(
            LintIgnore(
                rule=entry["rule"].strip(),
                tool=entry.get("tool"),
                argument=entry.get("argument"),
                pointer=entry.get("pointer"),
            )
            for entry in raw.get("ignore", [])
        )
        return LintConfig(
            severity=dict(raw.get("severity") or {}), disable=tuple(raw.get("disable", [])), ignore=ignore
        )

    def api(self, name: str, raw: Mapping[str, Any], approvals: ApprovalsConfig) -> ApiConfig:
        key: list[str | int] = ["apis", name]
        egress = self.egress(raw.get("egress") or {}, [*key, "egress"])
        allow = [parse_allow(entry) for entry in egress.allow]
        spec = read_spec(raw.get("spec"), self.base_dir, allow, lambda why: self.fail([*key, "spec"], why))
        base_url = raw["base_url"].strip() if raw.get("base_url") is not None else None
        answers = AnswersConfig().merged(raw.get("answers") or {})
        tools = {tool: self.tool(entry or {}, answers) for tool, entry in (raw.get("tools") or {}).items()}
        operations, settings, base_url = read_operations(name, raw.get("operations") or {}, base_url=base_url,
            spec=spec, tools=tools, allow=allow, fail=self.fail, tool=lambda entry: self.tool(entry, answers))  # fmt: skip
        return ApiConfig(
            name=name,
            spec=spec,
            operations=operations,
            base_url=base_url,
            auth=read_auth(raw.get("auth") or {}, [*key, "auth"], self.fail, self.base_dir, egress),
            timeout=DEFAULT_TIMEOUT if raw.get("timeout") is None else float(raw["timeout"]),
            egress=egress,
            include_deprecated=bool(raw.get("include_deprecated")),
            description_max=raw.get("description_max"),
            provenance=raw.get("provenance") is not False,
            search=raw.get("search", "auto"),
            tools={**tools, **settings},
            answers=answers,
            approvals=self.approvals(raw.get("approvals") or {}, approvals, [*key, "approvals"]),
            oauth=oauth_settings(
                raw.get("oauth"), egress, [*key, "oauth"], self.fail, self.base_dir, self.front
            ),
            source=self.source,
            ref_dirs=tuple(self.folder(folder) for folder in raw.get("ref_dirs", [])),
        )

    def egress(self, raw: Mapping[str, Any], key: list[str | int]) -> EgressConfig:
        allow = tuple(raw.get("allow", []))
        for index, entry in enumerate(allow):
            self.allow_entry(entry, [*key, "allow", index])
        return EgressConfig(allow=allow, redirects=int(raw.get("redirects", 0)))

    def allow_entry(self, entry: str, key: list[str | int]) -> AllowEntry:
        try:
            return parse_allow(entry)
        except ValueError as error:
            raise self.fail(key, f"an entry {error}") from None  # the key path says which, not the value

    def tool(self, raw: Mapping[str, Any], answers: AnswersConfig) -> ToolConfig:
        description = raw.get("description")
        timeout = raw.get("timeout")
        return ToolConfig(
            name=raw.get("name"),
            description=None if description is None else description.strip(),
            disabled=bool(raw.get("disabled")),
            requires_approval=bool(raw.get("requires_approval")),
            bindings=dict(raw.get("bindings") or {}),
            timeout=None if timeout is None else float(timeout),
            answers=None if raw.get("answers") is None else answers.merged(raw["answers"]),
        )

    def client(self, name: str, raw: Mapping[str, Any], apis: Mapping[str, ApiConfig]) -> ClientConfig:
        key: list[str | int] = ["clients", name]
        known = f"({', '.join(apis)})" if apis else "(there are none)"
        allowed = tuple(raw.get("apis", []))
        for api in allowed:
            if api not in apis and api not in self.toolsets:
                index = allowed.index(api)
                raise self.fail([*key, "apis", index], f"is not an API under `apis` {known}")
        bindings = {}
        for api, entries in (raw.get("bindings") or {}).items():
            if api not in apis:
                raise self.fail([*key, "bindings", api], f"is not an API under `apis` {known}")
            bindings[api] = dict(entries or {})
        secrets = {}
        for api, secret_id in (raw.get("secrets") or {}).items():
            if api not in apis or secret_id not in apis[api].auth.secrets:
                raise self.fail(
                    [*key, "secrets", api], "must name a secret id listed under that API's `auth.secrets`"
                )
            secrets[api] = secret_id
        webhook = None
        if raw.get("webhook"):
            webhook = replace(
                self.webhook(raw["webhook"], [*key, "webhook"]),
                events=tuple(raw["webhook"].get("events") or ("call.completed",)),
            )
        key_sha256 = (raw.get("key_sha256") or "").lower()
        if not key_sha256:
            check_keyless_client(name, allowed, apis, self.fail)
        return ClientConfig(
            id=name,
            display_name=" ".join(str(raw.get("display_name") or "").split()),
            key_sha256=key_sha256,
            apis=allowed,
            bindings=bindings,
            secrets=secrets,
            webhook=webhook,
        )
