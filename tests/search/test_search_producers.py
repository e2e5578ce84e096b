"""A task's first step found with its last: the best producer of a top hit's id follows it."""

from __future__ import annotations

from specbridge.document import parse_document
from specbridge.search import SearchIndex
from specbridge.search._producers import with_producers
from specbridge.tools import ConvertOptions, convert
from tests.support.movies import MOVIES


def index(provenance: bool = True) -> SearchIndex:
    document = parse_document(MOVIES)
    return SearchIndex.build(convert(document, ConvertOptions(provenance=provenance)).tools, document.data)


def test_the_step_that_gives_the_id_comes_right_after_the_hit_that_needs_it() -> None:
    answer = index().search("who directed this film, the crew of it", 3)
    names = [tool.name for tool in answer.tools]
    assert names[:2] == ["movie_credits", "search_movie"]
    assert answer.added_for == {"search_movie": "movie_credits"}


def test_without_provenance_the_answer_is_the_ranking_alone() -> None:
    answer = index(provenance=False).search("who directed this film, the crew of it", 3)
    assert answer.tools[0].name == "movie_credits"
    assert "search_movie" not in [tool.name for tool in answer.tools]
    assert answer.added_for == {}


def test_a_producer_the_caller_may_not_use_is_never_added() -> None:
    built = index()
    allowed = frozenset(i for i, tool in enumerate(built.tools) if tool.name != "search_movie")
    answer = built.search("who directed this film, the crew of it", 5, only=allowed)
    assert "search_movie" not in [tool.name for tool in answer.tools]
    assert answer.added_for.get("movie_top_rated") in (None, "movie_credits")


def test_producers_are_added_to_the_hits_two_for_five_and_follow_a_producers_own_ids() -> None:
    # 0 needs 1 and 2; 1 needs 3 (one step further); hits are 0, 5, 6, 7, 8 in that order
    producers = [((1,), (2,)), ((3,),), (), (), (), (), (), (), ()]
    chosen, added = with_producers([0, 5, 6, 7, 8], producers, 5)
    assert chosen == [0, 1, 3, 5, 6, 7, 8]  # every hit kept; 2 would be a third producer: two for five
    assert added == {1: 0, 3: 1}
    chosen, added = with_producers([0, 5, 6, 7, 8, 4], producers, 10)
    assert chosen == [0, 1, 3, 2, 5, 6, 7, 8, 4] and added == {1: 0, 3: 1, 2: 0}


def test_a_producer_among_the_top_hits_is_not_added_twice() -> None:
    producers = [((2,),), (), (), ()]
    chosen, added = with_producers([0, 1, 2, 3], producers, 4)
    assert chosen == [0, 1, 2, 3] and added == {}
