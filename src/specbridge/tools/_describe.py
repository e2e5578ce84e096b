"""A tool's description, title and hints: what a model learns about an operation beyond its arguments."""

from __future__ import annotations

from ..document import Operation
from ._model import Hints

TITLE_MAX = 80
_READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "QUERY"})
_DESTRUCTIVE = frozenset({"DELETE", "PUT", "PATCH"})
_NOT_IDEMPOTENT = frozenset({"POST", "PATCH"})
_MEDIA_WORDS = {"json": "JSON", "xml": "XML", "text/": "text", "image/": "an image", "octet-stream": "bytes"}


def hints(method: str) -> Hints:
    """Every hint set explicitly: MCP's defaults would call a POST destructive."""
    return Hints(
        read_only=method in _READ_ONLY,
        destructive=method in _DESTRUCTIVE,
        idempotent=method not in _NOT_IDEMPOTENT,
    )


def title(operation: Operation) -> str | None:
    summary = operation.summary
    if summary and len(summary) <= TITLE_MAX and "\n" not in summary:
        return summary.rstrip(".")
    return None


def deprecation_notice(operation: Operation) -> str:
    if not operation.deprecated and not operation.sunset:
        return ""
    notice = "DEPRECATED" if operation.deprecated else "Scheduled for removal"
    if operation.sunset:
        notice += f" (sunset {operation.sunset})"
    return notice + "."


def describe(operation: Operation) -> str:
    parts = []
    notice = deprecation_notice(operation)
    if notice:
        parts.append(notice)
    summary, description = operation.summary, operation.description
    if summary and not description.startswith(summary.rstrip(".")):
        parts.append(summary if summary.endswith((".", "!", "?")) else summary + ".")
    if description:
        parts.append(description)
    outcome = _outcome(operation)
    if outcome:
        parts.append(outcome)
    return "\n\n".join(parts) if parts else f"{operation.method} {operation.path}"


def _outcome(operation: Operation) -> str:
    """A tool definition has no field for responses, so the few words that matter go in the text."""
    success = [r for r in operation.responses if r.status.startswith("2")]
    errors = [r.status for r in operation.responses if r.status[:1] in ("4", "5") or r.status == "default"]
    words = []
    if success:
        first = sorted(success, key=lambda r: r.status)[0]
        what = first.description.splitlines()[0].strip().rstrip(".") if first.description else ""
        media = _media_word(first.content[0].content_type) if first.content else ""
        line = f"Returns {first.status}" + (f": {what[:120]}" if what else "")
        words.append(line + (f" ({media})." if media else "."))
    if errors:
        words.append("Errors: " + ", ".join(sorted(errors)) + ".")
    return " ".join(words)


def _media_word(content_type: str) -> str:
    lowered = content_type.lower()
    return next((word for key, word in _MEDIA_WORDS.items() if key in lowered), content_type)
