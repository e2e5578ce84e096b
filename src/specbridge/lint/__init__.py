"""Agent readiness: rules over the converted tools (what the agent gets), and report writers."""

from ._baseline import baseline as baseline
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
    "Finding",
    "LintContext",
    "Registry",
    "Report",
    "Rule",
    "Severity",
    "baseline",
    "default_registry",
    "lint",
    "render",
    "render_all",
]
