"""What a conversion produces: tools, their arguments, and the map from each argument to the request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..document import ApiDocument, Operation

Json = Any
ArgumentLocation = Literal["path", "query", "header", "cookie", "body"]
LOCATION_ORDER: tuple[ArgumentLocation, ...] = ("path", "query", "header", "cookie", "body")


@dataclass(frozen=True, slots=True)
class Argument:
    """One property of the tool's input, and where its value goes in the request."""

    name: str  # as the agent sees it
    location: ArgumentLocation
    original: str  # the name in the document; "" for an argument that is the whole body
    required: bool
    schema: Json
    style: str = ""
    explode: bool = False
    allow_reserved: bool = False
    content_type: str | None = None  # a parameter serialised as a media type (OpenAPI `content`)
    pointer: str = ""


@dataclass(frozen=True, slots=True)
class Body:
    content_type: str
    whole: bool  # True: the `body` argument is the whole body; False: body arguments are its fields
    required: bool
    encoding: Json = None
    pointer: str = ""
    # The fewest fields a body taken as fields may carry (its schema's `minProperties`): a tool's input
    # cannot say it (the body's fields sit beside path and query arguments), so the call checks it.
    min_properties: int = 0


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A parameter the agent is not offered, and why (the gateway sets it, or it cannot be sent)."""

    name: str
    location: str
    reason: str
    pointer: str


@dataclass(frozen=True, slots=True)
class Hints:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = True


@dataclass(frozen=True, slots=True)
class Producer:
    """An operation whose answer gives a value one argument of another tool needs."""

    tool: str  # the producing tool's name
    field: str  # where the value sits in its answer: `results[].id`, `owner.login`
    kind: Literal[
        "link", "resource", "name"
    ]  # the evidence: the document's `links`, the path's resource, names
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where the value of one identifying argument comes from: its producers, best first; `confident`
    when the evidence is strong enough to tell a model (docs/tools.md, "Where an id comes from")."""

    argument: str
    producers: tuple[Producer, ...]
    confident: bool


@dataclass(frozen=True, slots=True)
class Tool:
    name: str  # the MCP name: letters, digits, `_`, `.`, `-`
    portable_name: str  # ^[a-zA-Z0-9_-]{1,64}$, for OpenAI, Anthropic and strict MCP clients
    title: str | None
    description: str
    input_schema: Json
    output_schema: Json | None
    hints: Hints
    arguments: tuple[Argument, ...]
    body: Body | None
    operation: Operation
    left_out: tuple[LeftOut, ...] = ()
    default_name: str = ""  # the name before any config override
    # Headers the document fixes (one possible value) that no argument may set: the gateway sends them.
    fixed_headers: tuple[tuple[str, str], ...] = ()
    accept: str = ""  # `Accept` from the operation's response media types (JSON first); "" = generic
    # The 2xx JSON answer's schema whatever its root (MCP 2026-07-28's outputSchema); `output_schema` is
    # it when it is an object, the only root earlier revisions allow.
    answer_schema: Json | None = None
    icons: tuple[Mapping[str, str], ...] = ()  # MCP icons: the document's logo (`_icons`)
    # Where each identifying argument's value comes from, and the lines of it that end `description`.
    provenance: tuple[Provenance, ...] = ()
    provenance_note: str = ""

    @property
    def plain_description(self) -> str:
        """The description without the lines saying where its ids come from (wherever a later note, such
        as the approval note, put them)."""
        if not self.provenance_note:
            return self.description
        if self.description == self.provenance_note:
            return ""
        return self.description.replace("\n\n" + self.provenance_note, "", 1)

    def argument(self, name: str) -> Argument | None:
        return next((argument for argument in self.arguments if argument.name == name), None)


@dataclass(frozen=True, slots=True)
class ToolOverride:
    """Per-tool settings from the config (`tools.<name>`)."""

    name: str | None = None
    description: str | None = None
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class ConvertOptions:
    include_deprecated: bool = False
    overrides: Mapping[str, ToolOverride] = field(default_factory=dict)
    description_max: int | None = None  # each description shortened to this many characters
    provenance: bool = True  # where each id comes from: in descriptions, search and lint


@dataclass(frozen=True, slots=True)
class ToolSet:
    document: ApiDocument
    tools: tuple[Tool, ...]
    unresolved_refs: Mapping[str, str] = field(default_factory=dict)  # ref -> why it cannot be followed
    skipped_deprecated: tuple[Operation, ...] = ()
    disabled: tuple[str, ...] = ()

    def get(self, name: str) -> Tool | None:
        """A tool by its MCP name or its portable name."""
        for tool in self.tools:
            if name in (tool.name, tool.portable_name):
                return tool
        return None
