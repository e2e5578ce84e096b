"""What a model is handed of one answer (PRODUCT §5.4): the `fields` it asked for, then the token budget.

A whole answer that fits is passed on as before: a JSON object as compact text beside
`structuredContent`, other JSON indented when that fits too (its value is `structured` as well: MCP
2026-07-28 takes any JSON value, the gateway hands it on to those clients only), text as it came. Over the budget
(`answers.max_tokens`) it is shortened (`_budget`: whole items of the largest list, never half a value)
and the text starts with one line saying what was left out and how to get it with this operation's own
paging arguments (`_paging`) or `fields`. A shortened or selected answer never has `structuredContent`:
it is not the object the tool's `outputSchema` describes. For a tool that declares one, MCP requires
the whole object with every success, so its shortened answer is an `answer-shortened` error result
that still carries the shortened answer and says the call itself succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .._errors import ErrorCode
from .._json import dumps
from ..config import DEFAULT_ANSWER_TOKENS
from ._budget import Cut, fit_json, fit_text
from ._paging import NO_PAGING, Paging, how_to_page, next_in_answer, next_in_link
from ._result import CallResult
from ._salvage import Salvaged
from ._select import Selection, top_fields
from ._send import READ_LIMIT
from ._tokens import estimate_tokens

Json = Any
NOTE_TOKENS = 200  # kept free for the note when an answer is shortened
MIN_BUDGET = 100


@dataclass(frozen=True, slots=True)
class AnswerPolicy:
    """How one tool's answers are handed over; `selection` is one call's `fields`."""

    max_tokens: int = DEFAULT_ANSWER_TOKENS
    paging: Paging = NO_PAGING
    whole_object: bool = False  # the tool declares an outputSchema: a shortened answer is no success
    select: bool = False  # the tool takes `fields`
    selection: Selection | None = None

    def for_call(self, selection: Selection | None) -> AnswerPolicy:
        return self if selection is None else replace(self, selection=selection)


DEFAULT_POLICY = AnswerPolicy()


def json_result(
    value: Json,
    status: int,
    policy: AnswerPolicy,
    *,
    link: str = "",
    body: bytes | None = None,
    read_cut: Salvaged | None = None,
) -> CallResult:
    """The result for a parsed (and redacted) JSON answer; `body`: the answer as it came (its size spares
    encoding a large answer whole only to learn it is over the budget); `read_cut`: the answer was cut by
    the read cap and `value` is its whole values (`_salvage`). A whole answer is kept as `answer` too."""
    result, whole = _json_result(value, status, policy, link=link, body=body, read_cut=read_cut)
    return result if read_cut is not None or whole is None else replace(result, answer=whole)


def _json_result(
    value: Json,
    status: int,
    policy: AnswerPolicy,
    *,
    link: str,
    body: bytes | None,
    read_cut: Salvaged | None,
) -> tuple[CallResult, Json]:
    """The result, and the value it was made of (None when `fields` found nothing)."""
    selected_note = ""
    original = value
    if policy.selection is not None:
        found, walk = policy.selection.apply(value)
        if found is None:
            paths = ", ".join(f"`{text}`" for text in policy.selection.texts[:8])
            return CallResult(
                f"[fields: nothing in the answer matched {paths}; {top_fields(value)}.]", status=status
            ), None
        missing = policy.selection.unmatched(walk)
        if missing:
            selected_note = (
                f"[fields: {', '.join(f'`{text}`' for text in missing[:8])} matched nothing; "
                f"{top_fields(value)}.]\n"
            )
        if walk.stopped:
            selected_note += (
                "[fields: the answer was too large to select from whole; this is what was found first.]\n"
            )
        value = found
    fitted = fit_json(value, policy.max_tokens, reserve=NOTE_TOKENS, body=body if value is original else None)
    if not fitted.cuts and fitted.shown_tokens <= policy.max_tokens and read_cut is None:
        compact = fitted.data.decode("utf-8")
        if policy.selection is None and isinstance(value, dict):
            # With structuredContent the text repeats it for older clients: compact, since every byte
            # costs the model tokens.
            return CallResult(compact, status=status, structured=value), value
        indented = dumps(value, indent=True)
        text = indented if estimate_tokens(indented) <= policy.max_tokens else compact
        return CallResult(
            selected_note + text, status=status, structured=value if policy.selection is None else None
        ), value
    if not fitted.cuts and read_cut is None:  # nothing whole to leave out (one huge string): as text
        result = text_result(
            fitted.data.decode("utf-8"), status, policy, truncated=False, cut_note="", link=link
        )
        return replace(result, text=selected_note + result.text), value
    note = _shortened(fitted.cuts, fitted.tokens, policy, original, link, read_cut)
    text = selected_note + note + "\n" + fitted.data.decode("utf-8")
    return _shaped(text, status, policy), value


def text_result(
    text: str, status: int, policy: AnswerPolicy, *, truncated: bool, cut_note: str, link: str = ""
) -> CallResult:
    """The result for a text answer (or JSON that is not whole): its first lines within the budget."""
    prefix = ""
    if policy.selection is not None:
        why = "could not be read whole (over 1 MB)" if truncated else "is not JSON"
        prefix = f"[fields: nothing was selected: the answer {why}.]\n"
    fitted = fit_text(text, max(policy.max_tokens - NOTE_TOKENS, MIN_BUDGET))
    if fitted.tokens <= policy.max_tokens:
        return CallResult(prefix + text + (cut_note if truncated else ""), status=status)
    hint = how_to_page(policy.paging, None, in_answer=None, link=next_in_link(link))
    whole = (
        f"the answer was cut at {READ_LIMIT // (1024 * 1024)} MB, about {fitted.tokens:,} tokens, and the first "
        f"{fitted.lines:,} of its {fitted.total_lines:,} lines are shown"
        if truncated
        else f"the whole answer is about {fitted.tokens:,}); the first {fitted.lines:,} of its "
        f"{fitted.total_lines:,} lines are shown"
    )
    note = (
        f"[Shortened to fit this tool's answer budget of {policy.max_tokens:,} tokens"
        f"{': ' if truncated else ' ('}{whole}. For the rest, {hint}.]"
    )
    return _shaped(prefix + note + "\n" + fitted.text, status, policy)


def _shaped(text: str, status: int, policy: AnswerPolicy) -> CallResult:
    shortened = CallResult(text, status=status, shortened=True)
    return shortened_error(shortened) if policy.whole_object and policy.selection is None else shortened


def shortened_error(result: CallResult) -> CallResult:
    """A shortened answer of a tool that declares an output schema: MCP wants the whole answer beside
    one, so it is an `answer-shortened` error result that still carries the answer and says the call
    succeeded."""
    return CallResult(
        f"The API answered {result.status} and the call succeeded, but its answer is over this tool's "
        "answer budget; it is marked as an error only because this tool declares an output schema, which "
        "requires the whole answer.\n" + result.text,
        is_error=True,
        code=ErrorCode.ANSWER_SHORTENED,
        status=result.status,
    )


def _shortened(
    cuts: tuple[Cut, ...],
    tokens: int,
    policy: AnswerPolicy,
    answer: Json,
    link: str,
    read_cut: Salvaged | None,
) -> str:
    parts = []
    kept = 0
    went_on = read_cut.open_list if read_cut is not None else None
    for cut in cuts:
        where = f"`{'/'.join(cut.path)}`" if cut.path else "the answer"
        if cut.member:
            parts.append(f"{where} ({cut.total:,} bytes) was left out")
        else:
            kind = "members" if cut.mapping else "items"
            more = "more than " if cut.path == went_on else ""
            parts.append(f"the first {cut.kept:,} of {more}{cut.total:,} {kind} of {where} are shown")
            kept = kept or cut.kept
    if went_on is not None and read_cut is not None and all(cut.path != went_on for cut in cuts):
        where = f"`{'/'.join(went_on)}`" if went_on else "the answer"
        parts.append(f"the first {read_cut.items:,} items of {where} are shown, and more follow")
        kept = kept or read_cut.items
    what = "; ".join(parts) or "it was shortened"
    paged = went_on is not None or any(not cut.member and not cut.mapping for cut in cuts)
    hint = how_to_page(policy.paging, kept, in_answer=next_in_answer(answer), link=next_in_link(link))
    ways = []
    if paged:
        ways.append(hint)
    if policy.select:
        ways.append("ask only for the fields you need with `fields`")
    how = f" For the rest, {'; or '.join(ways)}." if ways else ""
    whole = (
        f"the answer was cut at {READ_LIMIT // (1024 * 1024)} MB, the read cap"
        if read_cut is not None
        else f"the whole answer is about {tokens:,}"
    )
    return f"[Shortened to fit this tool's answer budget of {policy.max_tokens:,} tokens ({whole}): {what}.{how}]"
