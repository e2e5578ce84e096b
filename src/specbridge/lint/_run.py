"""One lint run: every enabled rule over the converted tools, then config severities, ignores, positions."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ..document import Locator
from ..document.pointer import find_pointer, nodes_along
from ..tools import Tool, ToolSet
from . import _rules_document, _rules_names, _rules_shape, _rules_tasks
from ._model import Finding, LintContext, Registry, Severity

if TYPE_CHECKING:
    from ..config import ApiConfig, LintConfig

IGNORE_KEY = "x-specbridge-ignore"
# Rules about the gateway's configuration rather than the document: reported, but they do not fail a
# run unless the config names them under `lint.severity` (PRODUCT §3). `catalogue-size` is advice only
# when search mode will handle a big catalogue (`search: auto`, the default, also without a config).
ADVICE_RULES = ("destructive-unguarded", "catalogue-size")


def default_registry() -> Registry:
    """A new registry holding every built-in rule."""
    registry = Registry()
    for module in (_rules_names, _rules_shape, _rules_document, _rules_tasks):
        module.register(registry)
    return registry


@dataclass(frozen=True, slots=True)
class Report:
    toolset: ToolSet
    findings: tuple[Finding, ...]
    ignored: int = 0  # findings dropped by an ignore in the config or the document
    advice: frozenset[str] = frozenset()  # rule ids whose findings are advice here: they never fail a run

    @property
    def source(self) -> str:
        return self.toolset.document.source

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity == severity)

    def at_or_above(self, level: Severity) -> list[Finding]:
        return [finding for finding in self.findings if finding.severity.rank >= level.rank]

    def is_advice(self, finding: Finding) -> bool:
        return finding.rule in self.advice

    def failing(self, level: Severity) -> list[Finding]:
        """The findings at or above `level` that fail a run (advice never does)."""
        return [finding for finding in self.at_or_above(level) if not self.is_advice(finding)]

    def by_tool(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            if finding.tool is not None:
                grouped.setdefault(finding.tool, []).append(finding)
        return grouped


def lint(
    toolset: ToolSet,
    *,
    registry: Registry | None = None,
    api: ApiConfig | None = None,
    settings: LintConfig | None = None,
    config_source: str = "specbridge.yaml",
) -> Report:
    registry = registry if registry is not None else default_registry()
    severities: Mapping[str, str] = settings.severity if settings is not None else {}
    disabled = set(settings.disable) if settings is not None else set()
    disabled |= {rule for rule, level in severities.items() if level == "off"}
    if settings is not None:
        _check_rule_ids(settings, registry, config_source)
    context = LintContext(toolset=toolset, api=api)
    raw: list[Finding] = []
    for rule in registry:
        if rule.check is not None and rule.id not in disabled:
            raw.extend(rule.check(context))
    tools = {tool.name: tool for tool in toolset.tools}
    ignores = settings.ignore if settings is not None else ()
    kept: list[Finding] = []
    document_ignores = _DocumentIgnores(toolset.document.data)
    for finding in raw:
        if finding.rule in disabled:
            continue
        tool = tools.get(finding.tool) if finding.tool is not None else None
        if _ignored_in_document(finding, tool, document_ignores) or any(
            _matches(entry, finding) for entry in ignores
        ):
            continue
        kept.append(replace(finding, severity=registry.severity(finding.rule, severities)))
    positioned = _with_positions(kept, toolset.document.text)
    # By position in the document, as an editor lists problems; findings without one come first.
    order = {tool.name: index for index, tool in enumerate(toolset.tools)}
    positioned.sort(key=lambda f: (f.line or 0, f.column or 0, order.get(f.tool or "", -1), f.rule))
    return Report(
        toolset=toolset,
        findings=tuple(positioned),
        ignored=len(raw) - len(kept),
        advice=advice_rules(api, severities),
    )


def advice_rules(api: ApiConfig | None, severities: Mapping[str, str]) -> frozenset[str]:
    """Which of `ADVICE_RULES` are advice in this run: all, except those the config gives a severity,
    and `catalogue-size` when the API is served with `search: off` (nothing else will shrink the list)."""
    advice = {rule for rule in ADVICE_RULES if rule not in severities}
    if api is not None and api.search == "off":
        advice.discard("catalogue-size")
    return frozenset(advice)


def _check_rule_ids(settings: LintConfig, registry: Registry, source: str) -> None:
    valid = ", ".join(sorted(rule.id for rule in registry))
    named = [(f"lint.severity.{rule}", rule) for rule in settings.severity]
    named += [(f"lint.disable[{index}]", rule) for index, rule in enumerate(settings.disable)]
    named += [(f"lint.ignore[{index}].rule", entry.rule) for index, entry in enumerate(settings.ignore)]
    for key, rule in named:
        if rule not in registry:
            guess = difflib.get_close_matches(rule, [known.id for known in registry], n=1, cutoff=0.6)
            meant = f" (did you mean `{guess[0]}`?)" if guess else ""  # the value found is not repeated
            raise ConfigError(f"is not a lint rule{meant}; valid rules are: {valid}", source=source, key=key)


def _matches(entry: Any, finding: Finding) -> bool:
    if entry.rule != finding.rule:
        return False
    if entry.tool is not None and entry.tool != finding.tool:
        return False
    if entry.argument is not None and entry.argument != finding.argument:
        return False
    if entry.pointer is not None:
        pointer: str = entry.pointer
        return finding.pointer == pointer or finding.pointer.startswith(pointer.rstrip("/") + "/")
    return True


class _DocumentIgnores:
    """`x-specbridge-ignore` on anything along a finding's pointer, and on the schemas a request body
    or parameter there uses (through local `$ref`s)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.cache: dict[str, frozenset[str]] = {}

    def rules(self, pointer: str) -> frozenset[str]:
        if pointer not in self.cache:
            found: set[str] = set()
            path = nodes_along(self.data, pointer)
            for node in path:
                found |= _ignores_of(node)
            for schema in _schemas_under(self.data, path[-1]):
                found |= _ignores_of(schema)
            self.cache[pointer] = frozenset(found)
        return self.cache[pointer]


def _ignores_of(node: Any) -> set[str]:
    value = node.get(IGNORE_KEY) if isinstance(node, dict) else None
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {item for item in value if isinstance(item, str)}
    return set()


def _schemas_under(data: Any, node: Any) -> Iterable[Any]:
    if not isinstance(node, dict):
        return
    candidates = [node.get("schema")]
    content = node.get("content")
    if isinstance(content, dict):
        candidates += [media.get("schema") for media in content.values() if isinstance(media, dict)]
    for candidate in candidates:
        for _ in range(8):
            if not isinstance(candidate, dict):
                break
            yield candidate
            ref = candidate.get("$ref")
            if not (isinstance(ref, str) and ref.startswith("#/")):
                break
            candidate = find_pointer(data, ref[1:])


def _ignored_in_document(finding: Finding, tool: Tool | None, ignores: _DocumentIgnores) -> bool:
    if tool is not None and finding.rule in tool.operation.ignored_rules:
        return True
    if tool is not None and finding.rule in ignores.rules(tool.operation.pointer):
        return True
    return bool(finding.pointer) and finding.rule in ignores.rules(finding.pointer)


def _with_positions(findings: list[Finding], text: str) -> list[Finding]:
    if not findings:
        return []
    positions = Locator(text).positions([finding.pointer for finding in findings])
    return [
        replace(finding, line=position[0], column=position[1]) if position else finding
        for finding, position in zip(findings, positions, strict=True)
    ]
