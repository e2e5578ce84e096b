"""The kind of action a query means, so that among tools matching the same words the one doing what
was asked comes first.

A query names an action ("delete", "add", "change", "show") or asks a question ("which pods…", "is
node-3 healthy", "how many…", "did the job succeed"): a question reads. A tool whose action (read from
its method and path, `_document.action`) is not among those the query means counts less. A query that
names no action leaves every tool as it was, and so does a tool that acts by a verb of its own (`POST
/payouts/{id}/cancel`, `/chat.postMessage`): its verb is in its name, where the words already meet it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._text import first_word, terms

READ = frozenset({"list", "get", "check"})  # one family: "show me X" may be a listing or one item
# The first word of a question ("what's" counts as what): a question reads.
QUESTION_STARTS = frozenset(
    {"which", "who", "whom", "whose", "what", "how", "is", "are", "was", "were", "did", "does"}
    | {"has", "have", "had", "why", "when", "where", "am"}
)


def action_stems(action_words: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Each stem of the action words with the actions it can mean (`show` → list, get)."""
    meant: dict[str, set[str]] = {}
    for kind, spoken in action_words.items():
        for stem in terms(spoken):
            meant.setdefault(stem, set()).add(kind)
    return {stem: frozenset(kinds) for stem, kinds in meant.items()}


def meant_actions(query: str, said: Sequence[str], stems: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The actions a query means: those its words name, and reading when it is a question; empty when
    it names none. Reading is one family, and so are update and replace (PATCH or PUT)."""
    found: set[str] = set()
    for stem in said:
        found |= stems.get(stem, frozenset())
    if first_word(query) in QUESTION_STARTS or query.rstrip().endswith("?"):
        found |= READ
    if found & READ:
        found |= READ
    if found & {"update", "replace"}:
        found |= {"update", "replace"}
    return frozenset(found)
