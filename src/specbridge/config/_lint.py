"""`lint:` of `specbridge.yaml`: severities by rule, rules turned off, findings ignored."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
