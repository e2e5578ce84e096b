"""Rules about a tool's input: arguments from two places, depth, width, strict mode, the body's type.

Depth, as this module counts it (the providers say "five levels" without saying what a level is):
a flat body is 0: nothing has to be nested to fill it in. `{"a": {"b": "string"}}` is 1. Five nested
objects is 5, which is the limit. Only objects and arrays count; a scalar sits inside its parent.
`allOf`, `oneOf` and `anyOf` add nothing: an `allOf` of two flat objects is flat. `$ref`s into the tool's
`$defs` are followed; a schema that contains itself has no finite depth and counts as too deep.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..document.pointer import escape_token, find_pointer, unescape_token
from ..tools import StrictIncompatible, Tool, argument_name, strict_schema
from ._model import Finding, LintContext, Registry, Severity

Json = Any
MAX_DEPTH = 5
MAX_WIDTH = 15
RECURSIVE = 1_000_000  # a schema that contains itself: deeper than any limit
_COMPOSITIONS = ("allOf", "oneOf", "anyOf")
_SENDABLE_MULTIPART = "multipart/form-data"
_NOT_FIELDS = ("string", "array", "integer", "number", "boolean")


def collision(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        groups: dict[str, list[Any]] = {}
        for argument in tool.arguments:
            if argument.original:
                groups.setdefault(argument_name(argument.original), []).append(argument)
        for original, arguments in groups.items():
            locations = list(dict.fromkeys(argument.location for argument in arguments))
            if len(locations) < 2:
                continue
            concerned = next((a for a in arguments if a.location == "body"), arguments[-1])
            names = ", ".join(f"`{a.name}`" for a in arguments)
            yield context.finding(
                "collision",
                f"`{original}` arrives from both {' and '.join(locations)}; the agent sees {names}, "
                "names your documentation never uses.",
                _collision_fix(original, locations),
                pointer=_argument_pointer(context, tool, concerned),
                tool=tool,
                argument=concerned.name,
            )


def _collision_fix(original: str, locations: list[str]) -> str:
    """Keep the name the documentation uses where it identifies the resource (the path), and change
    only the other one. Never propose a new name for the path parameter: `username` → `userId` would
    claim an id where there is a name, and `userId` → `userKey` is a worse name for the same thing."""
    if "path" in locations:
        others = " and ".join(location for location in locations if location != "path")
        return (
            f"Drop `{original}` from the {others} if it only repeats the path's value; if it carries a "
            f"different value (e.g. a new one), name it for that, e.g. `{_renamed(original)}`."
        )
    first, *rest = locations
    return (
        f"Give the {' and '.join(rest)} parameter a name of its own that says how it differs from the "
        f"{first} one (or drop it if it repeats the same value)."
    )


def _renamed(original: str) -> str:
    """`new_` + the name in the name's own style: `username` → `new_username`, `userName` → `newUserName`."""
    if "_" in original or "-" in original or original.islower() or not original[:1].islower():
        return f"new_{original}"
    return f"new{original[:1].upper()}{original[1:]}"


def _argument_pointer(context: LintContext, tool: Tool, argument: Any) -> str:
    """For a body field: the property in the request body's schema when it can be found there."""
    pointer: str = argument.pointer or tool.operation.pointer
    if argument.location != "body" or tool.body is None or not argument.original:
        return pointer
    data = context.toolset.document.data
    schema_pointer = f"{pointer}/content/{escape_token(tool.body.content_type)}/schema"
    for _ in range(8):
        node = find_pointer(data, schema_pointer)
        if not isinstance(node, dict):
            return pointer
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            schema_pointer = ref[1:]
            continue
        properties = node.get("properties")
        if isinstance(properties, dict) and argument.original in properties:
            return f"{schema_pointer}/properties/{escape_token(argument.original)}"
        return pointer
    return pointer


def levels(node: Json, definitions: dict[str, Json], path: str = "") -> tuple[int, str]:
    """(objects and arrays on the deepest route through `node`, that route), `RECURSIVE` for a cycle."""
    return _Depth(definitions).levels(node, path)


class _Depth:
    def __init__(self, definitions: dict[str, Json]) -> None:
        self.definitions = definitions
        self.memo: dict[str, tuple[int, str]] = {}
        self.active: set[str] = set()

    def levels(self, node: Json, path: str) -> tuple[int, str]:
        if not isinstance(node, dict):
            return 0, path
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return self.reference(ref[len("#/$defs/") :], path)
        best = (0, path)
        children: list[tuple[Json, str]] = []
        properties = node.get("properties")
        if isinstance(properties, dict):
            children += [(value, f"{path}.{name}") for name, value in properties.items()]
        for key in ("additionalProperties", "items", "unevaluatedProperties", "contains"):
            if isinstance(node.get(key), dict):
                children.append((node[key], f"{path}[]" if key in ("items", "contains") else f"{path}.*"))
        for key in ("patternProperties",):
            if isinstance(node.get(key), dict):
                children += [(value, f"{path}.*") for value in node[key].values()]
        if isinstance(node.get("prefixItems"), list):
            children += [(value, f"{path}[]") for value in node["prefixItems"]]
        kinds = node.get("type")
        kinds = {kinds} if isinstance(kinds, str) else set(kinds) if isinstance(kinds, list) else set()
        if children or kinds & {"object", "array"}:
            inner = max((self.levels(child, where) for child, where in children), default=(0, path))
            best = (min(RECURSIVE, inner[0] + 1), inner[1])
        for key in _COMPOSITIONS:
            parts = node.get(key)
            if isinstance(parts, list):
                for part in parts:
                    candidate = self.levels(part, path)
                    if candidate[0] > best[0]:
                        best = candidate
        return best

    def reference(self, name: str, path: str) -> tuple[int, str]:
        name = unescape_token(name)
        if name in self.active:
            return RECURSIVE, f"{path} (contains itself via {name})"
        if name in self.memo:
            found, tail = self.memo[name]
            return found, path + tail
        self.active.add(name)
        result = self.levels(self.definitions.get(name), "")
        self.active.discard(name)
        self.memo[name] = result
        return result[0], path + result[1]


def depth(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        definitions = tool.input_schema.get("$defs") or {}
        measure = _Depth(definitions if isinstance(definitions, dict) else {})
        deepest: tuple[int, str, Any] | None = None
        for argument in tool.arguments:
            found, route = measure.levels(argument.schema, argument.name)
            if found > MAX_DEPTH and (deepest is None or found > deepest[0]):
                deepest = (found, route, argument)
        if deepest is None:
            continue
        found, route, argument = deepest
        how = (
            "contains itself, so it has no finite depth" if found >= RECURSIVE else f"is {found} levels deep"
        )
        yield context.finding(
            "depth",
            f"the argument `{argument.name}` {how} (at `{route}`); past {MAX_DEPTH} levels models put right "
            "values at the wrong level and OpenAI strict mode rejects the schema.",
            f"Flatten the body to at most {MAX_DEPTH} nested objects/arrays, e.g. by moving deep parts into "
            "their own operation.",
            pointer=_argument_pointer(context, tool, argument),
            tool=tool,
            argument=argument.name,
        )


def width(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        if len(tool.arguments) > MAX_WIDTH:
            yield context.finding(
                "width",
                f"the tool takes {len(tool.arguments)} arguments; past {MAX_WIDTH} models drop optional "
                "ones and confuse similar names, and every argument is paid for on every request.",
                f"Split the operation or group rarely used options so it takes at most {MAX_WIDTH} arguments.",
                pointer=tool.operation.pointer,
                tool=tool,
            )


def strict_incompatible(context: LintContext) -> Iterable[Finding]:
    """A tool `--format openai --strict` exports with `strict: false`, and why (what strict mode can
    keep but not say, such as an unsupported format, goes into descriptions and is no finding)."""
    for tool in context.tools:
        try:
            strict_schema(tool.input_schema)
        except StrictIncompatible as error:
            parts = error.where.split("/")
            argument = (
                tool.argument(parts[2].replace("~1", "/").replace("~0", "~"))
                if len(parts) > 2 and parts[1] == "properties"
                else None
            )
            yield context.finding(
                "strict-incompatible",
                f"OpenAI strict mode cannot express this tool's input: {error.reason}; the tool is exported "
                "with `strict: false`, so the model's arguments are not held to its schema.",
                "Give every object fixed properties and every value a type (no free-form maps, `not`, "
                "`if`/`then`, `patternProperties`, or `oneOf` branches that one value can match), within "
                "strict mode's limits (5,000 properties, 10 levels, 1,000 enum values).",
                pointer=_argument_pointer(context, tool, argument)
                if argument is not None
                else tool.operation.pointer,
                tool=tool,
                argument=argument.name if argument is not None else None,
            )


def unsendable(content_type: str) -> str | None:
    """Why the gateway cannot send a body of this type, or None when it can.

    It sends JSON and `+json`, form-urlencoded, multipart/form-data, text/*, XML, and any other concrete
    type (application/octet-stream, application/pdf, image/png ...) as raw bytes. It cannot build the
    other multipart kinds (mixed, related, ...) or `message/*`, nor guess a malformed type.
    """
    kind = content_type.lower().split(";")[0].strip()
    if "/" not in kind or kind.startswith("/") or kind.endswith("/"):
        return f"`{content_type}` is not a media type"
    if kind.startswith("multipart/") and kind != _SENDABLE_MULTIPART:
        return f"`{kind}` needs parts the gateway cannot build (it sends multipart/form-data only)"
    if kind.startswith("message/"):
        return f"`{kind}` is a message envelope, not a body the gateway can build"
    return None


def body_unsupported(context: LintContext) -> Iterable[Finding]:
    for tool in context.tools:
        request_body = tool.operation.request_body
        if request_body is None:
            continue
        if tool.body is None:
            if request_body.required:
                yield context.finding(
                    "body-unsupported",
                    "the operation requires a body but names no content type, so no body can be sent.",
                    "List the body under `content` with a media type such as application/json.",
                    pointer=request_body.pointer,
                    tool=tool,
                )
            continue
        reason = unsendable(tool.body.content_type)
        if reason is None and tool.body.whole:
            kind = tool.body.content_type.lower().split(";")[0].strip()
            body = tool.argument("body")
            shape = body.schema.get("type") if body is not None and isinstance(body.schema, dict) else None
            if kind in ("application/x-www-form-urlencoded", _SENDABLE_MULTIPART) and shape in _NOT_FIELDS:
                reason = f"a `{kind}` body must be an object of fields, and this one is {shape}"
        if reason is not None:
            yield context.finding(
                "body-unsupported",
                f"the request body cannot be sent: {reason}.",
                "Offer the body as application/json (or form, multipart/form-data, text or raw bytes).",
                pointer=request_body.pointer,
                tool=tool,
                argument="body" if tool.body.whole else None,
            )


def register(registry: Registry) -> None:
    registry.add("collision", Severity.WARNING, "An argument arrives from two locations.", collision)
    registry.add("depth", Severity.WARNING, f"An argument nests more than {MAX_DEPTH} levels.", depth)
    registry.add("width", Severity.WARNING, f"A tool takes more than {MAX_WIDTH} arguments.", width)
    registry.add(
        "strict-incompatible",
        Severity.INFO,
        "OpenAI strict mode cannot express a tool's input.",
        strict_incompatible,
    )
    registry.add(
        "body-unsupported", Severity.ERROR, "A request body the gateway cannot send.", body_unsupported
    )
