"""`apis.<name>.operations`: endpoints that have no OpenAPI document, described in the config.

```yaml
apis:
  weather:
    operations:
      current_weather:                       # the operation's id: the tool's name
        method: GET
        url: https://api.open-meteo.com/v1/forecast
        description: Current weather for a latitude and longitude, from Open-Meteo
        parameters:
          query:
            - {name: latitude, type: number, required: true, description: Latitude in degrees}
            - {name: current}
        bindings: {query.current: "temperature_2m,wind_speed_10m"}
```

Read here into `OperationConfig`s (every mistake a ConfigError naming the key path); turned into an
OpenAPI 3.1 document by `_document`, so lint, tools and serve treat them as any operation. An API's
calls all go under one base URL: a `url` must lie under the API's `base_url`, or (with neither
`base_url` nor `spec`) every `url` of the API shares one origin, which becomes its base URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError, RequestRefused
from .._network import AllowEntry, check_base_url
from ._model import OperationConfig, ParameterConfig, ToolConfig
from ._operation_schemas import check_schema, template_names

Key = list[str | int]
Fail = Callable[[Key, str], ConfigError]
LOCATIONS = ("path", "query", "header")
TOOL_KEYS = ("name", "requires_approval", "bindings", "disabled", "timeout", "answers")  # as `tools.<name>`


def read_operations(
    api: str,
    raw: Mapping[str, Any],
    *,
    base_url: str | None,
    spec: str,
    tools: Mapping[str, ToolConfig],
    allow: list[AllowEntry],
    fail: Fail,
    tool: Callable[[Mapping[str, Any]], ToolConfig],
) -> tuple[tuple[OperationConfig, ...], dict[str, ToolConfig], str | None]:
    """The operations of `apis.<api>.operations`, the tool settings their entries carry (by id, read
    by `tool` as a `tools.<name>` entry is; a `tools.<id>` entry beside them is refused: one place per
    tool), and the API's base URL (the configured one, checked against the egress rules, or the origin
    every `url` shares)."""
    has_spec = bool(spec)
    if base_url is not None:
        try:
            check_base_url(base_url, allow)
        except RequestRefused as error:
            why = f"{error.message} (list the host:port under egress.allow to permit it)"
            raise fail(["apis", api, "base_url"], why) from None
    operations: list[OperationConfig] = []
    settings: dict[str, ToolConfig] = {}
    origin: tuple[str, Key] | None = None
    seen: dict[tuple[str, str], str] = {}
    for op_id, entry in raw.items():
        key: Key = ["apis", api, "operations", op_id]
        path, url_origin = _path_of(entry, key, base_url=base_url, has_spec=has_spec, fail=fail)
        if url_origin is not None:
            if origin is None:
                origin = (url_origin, [*key, "url"])
            elif url_origin != origin[0]:
                raise fail(
                    [*key, "url"],
                    f"goes to {url_origin}, another origin than this API's other operations "
                    f"({origin[0]}); an API's calls all go under one base URL, so put it in an API of its own",
                )
        method = str(entry["method"]).upper()
        where = (method, path.split("?", 1)[0])
        if where in seen:
            raise fail(
                key, f"is {method} {where[1]}, as `operations.{seen[where]}` is; give each endpoint once"
            )
        seen[where] = op_id
        for part in ("request", "response"):
            check_schema(entry.get(part), [*key, part], fail)
        names = template_names(path, [*key, "url" if entry.get("url") is not None else "path"], fail)
        operations.append(
            OperationConfig(
                id=op_id,
                method=method,
                path=path,
                description=(entry.get("description") or "").strip(),
                parameters=_parameters(entry.get("parameters") or {}, names, key, fail),
                request=entry.get("request"),
                response=entry.get("response"),
            )
        )
        for tool_name in dict.fromkeys((op_id, str(entry.get("name") or op_id))):
            if tool_name in tools:  # one place per tool: an operation of the config carries its settings
                raise fail(
                    ["apis", api, "tools", tool_name],
                    f"is the tool of `operations.{op_id}`, described in this config: keep it in one place, "
                    f"its settings ({', '.join(TOOL_KEYS)}) on the operation, not under `tools`",
                )
        if any(entry.get(name) is not None for name in TOOL_KEYS):
            settings[op_id] = tool({name: entry[name] for name in TOOL_KEYS if name in entry})
    if base_url is None and origin is not None:
        try:
            check_base_url(origin[0], allow)
        except RequestRefused as error:
            raise fail(
                origin[1], f"{error.message} (list the host:port under egress.allow to permit it)"
            ) from None
        base_url = origin[0]
    return tuple(operations), settings, base_url


def _path_of(
    entry: Mapping[str, Any], key: Key, *, base_url: str | None, has_spec: bool, fail: Fail
) -> tuple[str, str | None]:
    """The path template under the API's base URL, and the origin a `url` names when the API has no
    base URL of its own (None otherwise)."""
    url, path = entry.get("url"), entry.get("path")
    if url is not None and path is not None:
        raise fail([*key, "path"], "give `url` or `path`, not both")
    if path is not None:
        if base_url is None and not has_spec:
            raise fail([*key, "path"], "needs the API's base_url (or a whole `url` instead)")
        return str(path).strip(), None
    if url is None:
        raise fail(key, "needs `url` (or `path` under the API's base_url)")
    url = str(url).strip()
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise fail([*key, "url"], "must not carry a user name or password; use the API's `auth`")
    if base_url is not None:
        base = base_url.rstrip("/")
        rest = url[len(base) :]
        if not url.startswith(base) or rest[:1] not in ("", "/", "?"):
            raise fail(
                [*key, "url"],
                f"lies outside the API's base_url ({base_url}); an API's calls all go under one base URL "
                "(give `path`, or put the endpoint in an API of its own)",
            )
        return (rest if rest.startswith("/") else "/" + rest), None
    if has_spec:
        raise fail(
            [*key, "url"],
            "beside `spec`, give `path` (under the document's server) or set the API's base_url",
        )
    origin = f"{parts.scheme.lower()}://{parts.netloc}"
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), origin


def _parameters(
    raw: Mapping[str, Any], template: list[str], key: Key, fail: Fail
) -> tuple[ParameterConfig, ...]:
    found: list[ParameterConfig] = []
    names: set[tuple[str, str]] = set()
    for location in LOCATIONS:
        for index, item in enumerate(raw.get(location) or []):
            where: Key = [*key, "parameters", location, index, "name"]
            name = str(item["name"])
            if (location, name.lower() if location == "header" else name) in names:
                raise fail(where, f"names the {location} parameter {name!r} a second time")
            names.add((location, name.lower() if location == "header" else name))
            if location == "path" and name not in template:
                shown = ", ".join(f"{{{n}}}" for n in template) or "none"
                raise fail(where, f"is no `{{{name}}}` of the URL (it has {shown})")
            enum = item.get("enum")
            found.append(
                ParameterConfig(
                    name=name,
                    location=location,  # type: ignore[arg-type]
                    description=(item.get("description") or "").strip(),
                    required=location == "path" or bool(item.get("required")),
                    type=item.get("type") or "string",
                    enum=tuple(enum) if enum is not None else None,
                    default=item.get("default"),
                )
            )
    declared = {p.name for p in found if p.location == "path"}
    found += [ParameterConfig(name=n, location="path", required=True) for n in template if n not in declared]
    return tuple(found)
