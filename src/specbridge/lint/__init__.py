"""Agent readiness: rules over the converted tools (what the agent gets), and report writers.

Modules:

- `_model`: findings, rules and the `Registry` they are registered on (an instance, never a global).
- `_rules_names`, `_rules_shape`, `_rules_document`, `_rules_tasks`: one small function per rule, by
  what it looks at (names; a tool's input; what the agent reads; tasks of several steps).
- `_run`: one lint run: every enabled rule, then the config's severities, ignores and positions.
- `_report`: the report writers: text, JSON, SARIF, GitHub annotations, Markdown.
- `_baseline`: today's findings as `lint.ignore` entries, merged into a config.
"""

from ._baseline import BaselineRefused as BaselineRefused
from ._baseline import baseline as baseline
from ._baseline import baseline_entries as baseline_entries
from ._baseline import merge_baseline as merge_baseline
from ._model import Finding as Finding
from ._model import LintContext as LintContext
from ._model import Registry as Registry
from ._model import Rule as Rule
from ._model import Severity as Severity
from ._report import FORMATS as FORMATS
from ._report import render as render
from ._report import render_all as render_all
from ._run import Report as Report
from ._run import default_registry as default_registry
from ._run import lint as lint

__all__ = [
    "FORMATS",
    "BaselineRefused",
    "Finding",
    "LintContext",
    "Registry",
    "Report",
    "Rule",
    "Severity",
    "baseline",
    "baseline_entries",
    "default_registry",
    "lint",
    "merge_baseline",
    "render",
    "render_all",
]
