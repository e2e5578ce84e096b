"""What a model is handed of one answer, through the real upstream: the budget, `fields`, the note."""

from __future__ import annotations

import json
import threading
from typing import Any

import orjson
import pytest

from specbridge.call import answer_tools
from specbridge.call._paging import paging_of
from specbridge.call._select import Selection, Walk
from specbridge.call._tokens import estimate_tokens
from specbridge.config import AnswersConfig, ToolConfig
from specbridge.document import from_data
from specbridge.tools import convert
from tests.call._caller import MakeCaller, api_config
from tests.call._caller import call as _call
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response, text_response

ITEM = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}


def _query(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": "string"}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Lists", "version": "1"},
    "paths": {
        "/issues": {
            "get": {
                "operationId": "listIssues",
                "parameters": [_query("per_page"), _query("page"), _query("state")],
                "responses": {
                    "200": {
                        "description": "Issues",
                        "content": {"application/json": {"schema": {"type": "array", "items": ITEM}}},
                    }
                },
            }
        },
        "/customers": {
            "get": {
                "operationId": "listCustomers",
                "parameters": [_query("limit"), _query("starting_after"), _query("ending_before")],
                "responses": {
                    "200": {
                        "description": "A page",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "data": {"type": "array", "items": ITEM},
                                        "has_more": {"type": "boolean"},
                                    },
                                }
                            }
                        },
                    }
                },
            }
        },
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [_query("q"), _query("fields")],
                "responses": {
                    "200": {"description": "Hits", "content": {"application/json": {"schema": {}}}}
                },
            }
        },
        "/log": {
            "get": {
                "operationId": "getLog",
                "parameters": [_query("offset")],
                "responses": {"200": {"description": "Log", "content": {"text/plain": {"schema": {}}}}},
            }
        },
    },
}
ISSUES = [
    {
        "id": f"issue-{i}",
        "title": f"Issue number {i} about the checkout page",
        "body": "The checkout page shows the wrong total when a coupon is applied twice. " * 20,
    }
    for i in range(400)
]


@pytest.fixture(autouse=True)
def routes(upstream: Upstream) -> None:
    upstream.route("/v1/issues", json_response(ISSUES))
    upstream.route("/v1/customers", json_response({"object": "list", "data": ISSUES, "has_more": True}))
    upstream.route("/v1/search", json_response({"hits": [{"id": 1}]}))
    upstream.route("/v1/log", text_response("\n".join(f"{i} GET /orders 200 12ms" for i in range(20_000))))


def _caller(make_caller: MakeCaller, **answers: Any) -> Any:
    return make_caller(document=DOCUMENT, auth_type="none", answers=AnswersConfig(**answers))


async def test_a_list_of_620_kb_is_cut_to_the_budget_with_whole_items_and_its_own_paging_arguments(
    make_caller: MakeCaller,
) -> None:
    assert len(json.dumps(ISSUES)) > 500_000
    result = await _call(_caller(make_caller), "listIssues", {})
    assert not result.is_error and result.structured is None
    note, _, rest = result.text.partition("\n")
    shown = orjson.loads(rest)
    assert 10 < len(shown) < 400 and shown == ISSUES[: len(shown)]
    assert note.startswith("[Shortened to fit this tool's answer budget of 20,000 tokens")
    assert f"the first {len(shown)} of 400 items of the answer are shown" in note
    assert f"call again with `per_page` at most {len(shown)} and page with `page`" in note
    assert estimate_tokens(result.text) <= 20_000


async def test_an_answer_within_the_budget_is_handed_over_as_before(make_caller: MakeCaller) -> None:
    result = await _call(_caller(make_caller, max_tokens=1_000_000), "listCustomers", {})
    assert result.structured == {"object": "list", "data": ISSUES, "has_more": True}
    assert orjson.loads(result.text) == result.structured


async def test_a_shortened_answer_of_a_tool_with_an_output_schema_is_an_error_result_that_says_it_succeeded(
    make_caller: MakeCaller,
) -> None:
    result = await _call(_caller(make_caller), "listCustomers", {})
    assert result.is_error and result.code == "answer-shortened" and result.status == 200
    assert result.structured is None
    assert "the call succeeded" in result.text
    assert "`limit` at most" in result.text and "`starting_after` or `ending_before`" in result.text


async def test_fields_selects_before_the_budget_and_is_never_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = _caller(make_caller, select=True)
    result = await _call(caller, "listCustomers", {"limit": "400", "fields": ["data/*/id", "has_more"]})
    assert not result.is_error and result.structured is None
    assert orjson.loads(result.text) == {"data": [{"id": item["id"]} for item in ISSUES], "has_more": True}
    assert upstream.requests[-1].query == [("limit", "400")]


async def test_fields_over_a_large_answer_are_selected_off_the_event_loop(
    make_caller: MakeCaller, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[int] = []
    apply = Selection.apply

    def noted(self: Selection, value: Any, walk: Walk | None = None) -> tuple[Any, Walk]:
        threads.append(threading.get_ident())
        return apply(self, value, walk)

    monkeypatch.setattr(Selection, "apply", noted)
    caller = _caller(make_caller, select=True)
    large = await _call(caller, "listCustomers", {"fields": ["data/*/id"]})
    upstream.route("/v1/issues", json_response(ISSUES[:2]))
    small = await _call(caller, "listIssues", {"fields": "*/id"})
    assert orjson.loads(small.text) == [{"id": "issue-0"}, {"id": "issue-1"}] and not large.is_error
    assert threads[0] != threading.get_ident()  # the 620 KB answer: in a worker thread
    assert threads[1] == threading.get_ident()  # a small one: not worth a thread


async def test_bad_fields_are_refused_before_anything_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    caller = _caller(make_caller, select=True)
    result = await _call(caller, "listCustomers", {"fields": ["data/" * 40]})
    assert result.is_error and result.code == "arguments-invalid"
    assert "fields/0: at most 16 keys deep" in result.text
    assert upstream.requests == []


async def test_fields_that_match_nothing_give_an_empty_selection_with_a_note(make_caller: MakeCaller) -> None:
    result = await _call(_caller(make_caller, select=True), "listCustomers", {"fields": "data/*/nmae"})
    assert not result.is_error
    assert result.text == (
        "[fields: nothing in the answer matched `data/*/nmae`; the answer is an object with object, data, has_more.]"
    )


async def test_an_operations_own_fields_parameter_is_sent_as_the_api_asks(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(_caller(make_caller, select=True), "search", {"q": "mug", "fields": "id"})
    assert result.structured == {"hits": [{"id": 1}]}
    assert ("fields", "id") in upstream.requests[-1].query


async def test_without_select_fields_is_an_unknown_argument(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(_caller(make_caller), "listIssues", {"fields": ["*/id"]})
    assert result.is_error and result.code == "arguments-invalid"
    assert upstream.requests == []


async def test_a_long_text_answer_keeps_its_first_lines(make_caller: MakeCaller) -> None:
    result = await _call(_caller(make_caller, max_tokens=2_000), "getLog", {})
    note, _, rest = result.text.partition("\n")
    assert "of its 20,000 lines are shown" in note and "`offset` set past the last item shown" in note
    assert rest.splitlines() == [f"{i} GET /orders 200 12ms" for i in range(len(rest.splitlines()))]


async def test_a_link_header_or_a_next_member_tells_where_the_next_page_is(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    def linked(request: RecordedRequest) -> Reply:
        return json_response(
            ISSUES, headers=[("Link", '<https://api.example/issues?per_page=30&page=2>; rel="next"')]
        )

    upstream.route("/v1/issues", linked)
    document = json.loads(json.dumps(DOCUMENT))
    document["paths"]["/issues"]["get"]["parameters"] = [_query("state")]
    caller = make_caller(document=document, auth_type="none")
    result = await _call(caller, "listIssues", {})
    assert "the API's Link header gives the next page as `per_page=30&page=2`" in result.text


def test_the_input_schema_has_fields_only_where_select_is_on_and_the_answer_is_json() -> None:
    toolset = convert(from_data(DOCUMENT, source="lists.yaml"))
    api = api_config(
        "https://api.example", answers=AnswersConfig(select=True), tools={"getLog": ToolConfig()}
    )
    served = {tool.name: tool for tool in answer_tools(api, toolset).tools}
    assert "fields" in served["listIssues"].input_schema["properties"]
    assert "fields" in served["listCustomers"].input_schema["properties"]
    assert served["listCustomers"].output_schema is None  # a selection is not the object it describes
    assert "fields" not in served["getLog"].input_schema["properties"]  # text
    assert served["search"].input_schema["properties"]["fields"] == {"type": "string"}  # the API's own
    off = api_config(
        "https://api.example", tools={"listIssues": ToolConfig(answers=AnswersConfig(select=True))}
    )
    only = {tool.name: tool for tool in answer_tools(off, toolset).tools}
    assert "fields" in only["listIssues"].input_schema["properties"]
    assert "fields" not in only["listCustomers"].input_schema["properties"]


def test_paging_arguments_are_read_from_the_tool_less_those_the_config_binds() -> None:
    tools = {tool.name: tool for tool in convert(from_data(DOCUMENT, source="lists.yaml")).tools}
    found = paging_of(tools["listCustomers"])
    assert found.sizes == ("limit",) and found.positions == ("starting_after", "ending_before")
    assert paging_of(tools["listIssues"], frozenset({"page"})).positions == ()


async def test_a_list_past_the_1_mb_read_cap_still_gives_whole_items(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    many = ISSUES * 8  # about 4 MB: the read cap cuts it inside an item
    upstream.route("/v1/issues", json_response(many))
    result = await _call(_caller(make_caller), "listIssues", {})
    note, _, rest = result.text.partition("\n")
    shown = orjson.loads(rest)
    assert not result.is_error and 10 < len(shown) < 400 and shown == many[: len(shown)]
    assert note.startswith(
        "[Shortened to fit this tool's answer budget of 20,000 tokens (the answer was cut at 1 MB, the read cap): "
        f"the first {len(shown)} of more than "
    )
    assert f"`per_page` at most {len(shown)}" in note


def test_one_huge_string_with_nothing_whole_to_leave_out_is_shortened_as_text() -> None:
    from specbridge.call._answers import AnswerPolicy, json_result

    result = json_result("word " * 100_000, 200, AnswerPolicy(max_tokens=1_000))
    note, _, rest = result.text.partition("\n")
    assert note.startswith(
        "[Shortened to fit this tool's answer budget of 1,000 tokens (the whole answer is about"
    )
    assert "this operation has no paging arguments" in note
    assert rest.startswith('"word word') and len(rest) < 10_000


@pytest.mark.parametrize(
    ("paging", "kept", "answer", "says"),
    [
        (
            ("limit",),
            ("starting_after",),
            {},
            "call again with `limit` at most 37 and page with `starting_after`",
        ),
        ((), ("page",), {}, "call again with `page` set past the last item shown"),
        (
            ("per_page",),
            (),
            {"links": {"next": "/x?page=2"}},
            "`per_page` at most 37; the answer's `links/next`",
        ),
        ((), (), {"@odata.nextLink": "https://x"}, "the answer's `@odata.nextLink` leads to its next page"),
        ((), (), {}, "this operation has no paging arguments: narrow the request with its filters"),
    ],
)
def test_the_note_names_the_operations_own_way_to_the_rest(
    paging: tuple[str, ...], kept: tuple[str, ...], answer: dict[str, Any], says: str
) -> None:
    from specbridge.call._paging import Paging, how_to_page, next_in_answer, next_in_link

    found = how_to_page(Paging(paging, kept), 37, in_answer=next_in_answer(answer), link=None)
    assert says in found
    assert next_in_link('<https://api.github.com/x?per_page=30&page=2>; rel="next", <…>; rel="last"') == (
        "per_page=30&page=2"
    )
    assert (
        how_to_page(Paging(("limit",), ()), None, in_answer=None, link=None)
        == "call again with a smaller `limit`"
    )
