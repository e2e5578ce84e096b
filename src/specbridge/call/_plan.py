"""One plan per (tool, client bindings): everything a call of that tool needs from the config, worked
out once and kept (bounded) instead of on every call.

A `CallPlan` holds the tool's settings (`tools.<name>` in the config), the binding plan (the tool's
bindings with the client's on top) and those values as the config names them, the input schema without
the bound arguments (with `fields` where the tool takes it), the upstream timeout, whether a person must
approve each call, and how its answers are handed over (`AnswerPolicy`: budget, paging arguments). The compiled check is made on the first call (a listing asks
for the schema of every tool and should not compile a check for each) and kept in a smaller cache of its
own, shared by the plans that bind the same argument names.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import orjson

from ..config import DEFAULT_TIMEOUT, ApiConfig, ToolConfig
from ..tools import Tool
from ._answers import AnswerPolicy
from ._bindings import BindingPlan, bound_values, plan_bindings, strip_schema
from ._check import Checker
from ._fields import FIELDS, answers_of, takes_fields, with_fields
from ._lru import Lru
from ._paging import paging_of

Json = Any
PLANS = 1024  # plans kept per API (tool x client bindings), the least recently used dropped
CHECKERS = 256  # compiled checks kept per API (tool x bound argument names), shared between plans
CheckerKey = tuple[str, tuple[tuple[str, ...], ...]]


class CallPlan:
    """What the config decides for calls of one tool by one client; never changed once made."""

    __slots__ = (
        "_checker",
        "_checkers",
        "answers",
        "binding_values",
        "bindings",
        "bound",
        "requires_approval",
        "settings",
        "timeout",
        "tool",
    )

    def __init__(
        self,
        tool: Tool,
        settings: ToolConfig | None,
        bindings: BindingPlan,
        timeout: float,
        checkers: Lru[CheckerKey, Checker],
        binding_values: Mapping[str, Json] | None = None,
        answers: AnswerPolicy | None = None,
    ) -> None:
        self.tool = tool
        self.answers = answers or AnswerPolicy()
        self.settings = settings
        self.bindings = bindings
        # the config's bindings for these calls (the tool's, then the client's) as a person sees them
        self.binding_values: Mapping[str, Json] = MappingProxyType(dict(binding_values or {}))
        self.timeout = timeout
        self.requires_approval = settings is not None and settings.requires_approval
        self.bound: tuple[str, ...] = tuple(bound_values(bindings))  # what a redirect may not carry
        self._checkers = checkers

    def input_schema(self) -> dict[str, Json]:
        """The tool's input schema without the bound arguments (a new dict each time: callers may keep it)."""
        schema = strip_schema(self.tool.input_schema, self.bindings)
        found = dict(schema) if isinstance(schema, dict) else {"type": "object"}
        if self.answers.select and FIELDS not in (found.get("properties") or {}):
            found = with_fields(found)
        return found

    @property
    def checker(self) -> Checker:
        """The compiled check, from the API's bounded cache (not kept here, so that cache alone bounds
        how many compiled checks are alive: plans are many and light, compiled checks few and heavy)."""
        key = (self.tool.name, self.bindings.key)
        checker = self._checkers.get(key)
        if checker is None:
            checker = Checker(strip_schema(self.tool.input_schema, self.bindings))
            self._checkers.put(key, checker)
        return checker


class Plans:
    """The plans of one API's tools, made on first use and kept in a bounded cache."""

    def __init__(self, api: ApiConfig, *, size: int = PLANS, checkers: int = CHECKERS) -> None:
        self.api = api
        self._plans: Lru[tuple[str, bytes], CallPlan] = Lru(size)
        self.checkers: Lru[CheckerKey, Checker] = Lru(checkers)

    def plan(self, tool: Tool, client_bindings: Mapping[str, Json] | None, *, keep: bool = True) -> CallPlan:
        """The plan for `tool` under `client_bindings`. `keep=False` makes one without caching it when
        there is none yet (a listing visits every tool once; it should not push out the plans in use)."""
        key = _key(tool, client_bindings)
        plan = self._plans.get(key) if key is not None else None
        if plan is not None:
            return plan
        plan = self._make(tool, client_bindings)
        if key is not None and keep:
            self._plans.put(key, plan)
        return plan

    def _make(self, tool: Tool, client_bindings: Mapping[str, Json] | None) -> CallPlan:
        settings = self.api.tool_settings(tool)
        bindings = dict(settings.bindings) if settings is not None else {}
        bindings.update(client_bindings or {})
        timeout = (
            settings.timeout
            if settings is not None and settings.timeout is not None
            else (self.api.timeout or DEFAULT_TIMEOUT)
        )
        binding_plan = plan_bindings(tool, bindings)
        answers = answers_of(self.api, tool, settings) if settings is not None else self.api.answers
        select = takes_fields(tool, answers)
        policy = AnswerPolicy(
            max_tokens=answers.max_tokens,
            paging=paging_of(tool, frozenset(name for name, _ in binding_plan.top)),
            whole_object=tool.output_schema is not None and not select,
            select=select,
        )
        return CallPlan(tool, settings, binding_plan, timeout, self.checkers, bindings, policy)

    def __len__(self) -> int:
        return len(self._plans)


def _key(tool: Tool, client_bindings: Mapping[str, Json] | None) -> tuple[str, bytes] | None:
    """The cache key: the tool and the client's bindings by value (two clients binding the same names to
    different values get different plans). None when the bindings are not JSON: then nothing is kept."""
    if not client_bindings:
        return (tool.name, b"")
    try:
        return (tool.name, orjson.dumps(client_bindings, option=orjson.OPT_SORT_KEYS))
    except (TypeError, ValueError):
        return None
