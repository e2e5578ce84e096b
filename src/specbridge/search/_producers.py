"""A task's first step found with its last: a hit's producers returned beside it.

"Who directed the top-rated movie?" names the credits, not the list that gives the movie's id; a
search for it ranks `movie_credits` first and the list nowhere near. Each tool knows the operations
whose answers produce its ids (`tools.Provenance`); unless one of them is among the hits already
(the query said "top-rated"), the best follows the hit, so the model sees both steps at once. Only
the top hits are followed, each by at most one producer per id it takes and at most `PER_HIT` in
all, and a producer the caller may not use is never added. Producers are added to the answer, never in
place of a hit: an answer for `limit` 5 holds the 5 best hits and at most 2 producers (`SHARE`), so a
one-step search finds what it found without them (bench/search.py).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..tools import Tool

FOLLOWED = 2  # how many of the top hits bring their producers along (chosen on the tune sets)
PER_HIT = 2  # producers added after one hit at most
DEPTH = 2  # a producer's own producers (a workspace before its projects) are followed this far
SHARE = 40  # producers added at most, in percent of `limit`: 2 for 5, 4 for 10 (bench/tasks.py)


def producer_positions(tools: Sequence[Tool]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each tool, for each id it takes (the required ones first), its producers' positions, best
    first. An optional id counts too: `device_id` of "play on my kitchen speaker" is optional."""
    position = {tool.name: i for i, tool in enumerate(tools)}
    result = []
    for tool in tools:
        required = {argument.name for argument in tool.arguments if argument.required}
        entries = sorted(tool.provenance, key=lambda entry: entry.argument not in required)
        result.append(
            tuple(
                found
                for entry in entries
                if (found := tuple(position[p.tool] for p in entry.producers if p.tool in position))
            )
        )
    return tuple(result)


def with_producers(
    ranked: Sequence[int],
    producers: Sequence[Sequence[Sequence[int]]],
    limit: int,
    allowed: Collection[int] | None = None,
) -> tuple[list[int], dict[int, int]]:
    """The first `limit` of `ranked`, the best producers of the top hits added after each (a producer
    among those hits is not added again); and for each producer added, the hit it was added for."""
    room = max(1, limit * SHARE // 100)
    hits = list(ranked[:limit])
    coming = set(hits)  # in the answer anyway
    out: list[int] = []
    added: dict[int, int] = {}

    def follow(hit: int, depth: int) -> None:
        taken = 0
        for choices in producers[hit]:
            usable = [p for p in choices if p != hit and (allowed is None or p in allowed)]
            if not usable:
                continue
            best = usable[0]
            if best not in out and best not in coming:
                if taken >= PER_HIT or len(added) >= room:
                    return
                out.append(best)
                added[best] = hit
                taken += 1
            if depth < DEPTH:
                follow(best, depth + 1)  # its own ids: the step before it

    for rank, hit in enumerate(hits):
        out.append(hit)
        if rank < FOLLOWED:
            follow(hit, 1)
    return out, added
