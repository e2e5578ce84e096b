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


def describe(operation: Operation, limit: int | None = None) -> str:
    """What the tool does: deprecation, summary, description, outcome. Within `limit` characters, the
    document's description is what gets shortened (at a sentence where it can), the rest is kept."""
    head, tail = [], []
    notice = deprecation_notice(operation)
    if notice:
        head.append(notice)
    summary, description = operation.summary, operation.description
    if summary and not description.startswith(summary.rstrip(".")):
        head.append(summary if summary.endswith((".", "!", "?")) else summary + ".")
    outcome = _outcome(operation)
    if outcome:
        tail.append(outcome)
    if limit is not None and description:
        room = limit - sum(len(part) + 2 for part in head + tail)
        description = shorten_text(description, room) if room >= 80 else ""
    parts = head + ([description] if description else []) + tail
    text = "\n\n".join(parts) if parts else f"{operation.method} {operation.path}"
    return text if limit is None else shorten_text(text, limit)


# The last sentence of a tool whose calls a person approves (`requires_approval`), in every export: a
# model reading it can tell its user that the call waits for a person, and what to do meanwhile.
APPROVAL_NOTE = (
    "A person approves each call of this tool before it is sent; until then the call answers "
    "approval-pending with an id, and calling it again with the same arguments returns the outcome."
)


def with_approval_note(description: str) -> str:
    """`description` ending with `APPROVAL_NOTE` (once)."""
    if description.endswith(APPROVAL_NOTE):
        return description
    return f"{description}\n\n{APPROVAL_NOTE}" if description else APPROVAL_NOTE


def shorten_text(text: str, limit: int) -> str:
    """`text` within `limit` characters: whole when it fits, else cut after the last sentence or
    paragraph that fits (at a word when none does), with "…" to say so."""
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    ends = [kept.rfind(mark) + len(mark) - 1 for mark in (". ", ".\n", "\n\n", "! ", "? ")]
    cut = max(ends)
    if cut < limit // 2:
        cut = kept.rfind(" ") if kept.rfind(" ") >= limit // 2 else len(kept)
    return kept[:cut].rstrip() + "…"


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
