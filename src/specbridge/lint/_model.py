"""Findings, rules and the registry they are registered on (an instance, never a module global)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from ..tools import Tool, ToolSet

if TYPE_CHECKING:
    from ..config import ApiConfig


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]

    @classmethod
    def parse(cls, value: str) -> Severity:
        """`error`, `warning`, `info` (SARIF's `note` is accepted for `info`)."""
        return cls("info" if value == "note" else value)


SEVERITY_NAMES = ("error", "warning", "info", "note")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem an agent will run into; `fix` is one sentence saying what to change."""

    rule: str
    message: str
    fix: str
    pointer: str = ""
    tool: str | None = None
    operation: str | None = None  # "PUT /users/{username}"
    argument: str | None = None
    severity: Severity = Severity.WARNING  # the registry's default, or the config's, set by the runner
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True, slots=True)
class LintContext:
    """What every rule reads: the converted tools (what the agent gets) and the API's config entry."""

    toolset: ToolSet
    api: ApiConfig | None = None

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self.toolset.tools

    def finding(
        self,
        rule: str,
        message: str,
        fix: str,
        *,
        pointer: str = "",
        tool: Tool | None = None,
        argument: str | None = None,
    ) -> Finding:
        return Finding(
            rule=rule,
            message=message,
            fix=fix,
            pointer=pointer,
            tool=tool.name if tool is not None else None,
            operation=tool.operation.label if tool is not None else None,
            argument=argument,
        )


Check = Callable[[LintContext], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    summary: str
    check: Check | None = None  # None: findings of this id come from another check (document notes)


@dataclass(slots=True)
class Registry:
    """The rules a lint run uses. Build one with `default_registry()`, or your own."""

    rules: dict[str, Rule] = field(default_factory=dict)

    def add(self, rule_id: str, severity: Severity, summary: str, check: Check | None = None) -> None:
        if rule_id in self.rules:
            raise ValueError(f"rule {rule_id!r} is registered twice")
        self.rules[rule_id] = Rule(rule_id, severity, summary, check)

    def rule(self, rule_id: str, severity: Severity, summary: str) -> Callable[[Check], Check]:
        """Decorator form of `add`."""

        def register(check: Check) -> Check:
            self.add(rule_id, severity, summary, check)
            return check

        return register

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def severity(self, rule_id: str, overrides: Mapping[str, str] | None = None) -> Severity:
        if overrides and rule_id in overrides and overrides[rule_id] != "off":
            return Severity.parse(overrides[rule_id])
        rule = self.rules.get(rule_id)
        return rule.severity if rule is not None else Severity.WARNING
