"""Where an id comes from: each identifying argument's producers, from `links`, the path's resource and
names, best first; the line a confident one adds to the description, within its budget."""

from __future__ import annotations

import pytest

from specbridge.document import parse_document
from specbridge.tools import ConvertOptions, Tool, ToolOverride, ToolSet, convert
from tests.support.movies import MOVIES
from tests.support.openapi import toolset


def movies(options: ConvertOptions | None = None) -> ToolSet:
    return convert(parse_document(MOVIES), options)


def producers_of(tool: Tool, argument: str) -> list[tuple[str, str, str]]:
    entry = next(entry for entry in tool.provenance if entry.argument == argument)
    return [(producer.tool, producer.field, producer.kind) for producer in entry.producers]


def test_a_list_or_search_of_the_resource_the_path_names_produces_its_id_and_the_description_says_so() -> (
    None
):
    tools = movies()
    credits = tools.get("movie_credits")
    assert credits is not None
    assert producers_of(credits, "movie_id") == [
        ("search_movie", "results[].id", "resource"),
        ("movie_top_rated", "results[].id", "resource"),
    ]
    assert credits.description.endswith(
        "\n\n`movie_id`: from `search_movie` or `movie_top_rated` (`results[].id`)."
    )
    assert (
        credits.plain_description
        == "Cast and crew of a movie, the director among them.\n\nReturns 200: the cast and crew (JSON)."
    )


def test_an_operation_that_needs_the_id_itself_or_lists_something_else_is_no_producer_of_it() -> None:
    credits = movies().get("movie_credits")
    assert credits is not None
    names = [name for name, _, _ in producers_of(credits, "movie_id")]
    assert "movie_details" not in names  # it needs a movie_id to give one
    assert "genre_movie_list" not in names  # `/genre/movie/list` lists genres, not movies


def test_a_link_of_the_document_names_the_producer_and_the_field_of_its_answer() -> None:
    person = movies().get("person_details")
    assert person is not None
    assert producers_of(person, "person_id") == [("movie_credits", "cast[].id", "link")]
    assert person.description.endswith("`person_id`: from `movie_credits` (`cast[].id`).")


def test_an_id_nothing_produces_is_kept_without_producers_and_without_a_line() -> None:
    favorite = movies().get("add_favorite")
    assert favorite is not None
    account = next(entry for entry in favorite.provenance if entry.argument == "account_id")
    assert account.producers == () and not account.confident
    assert "account_id" not in favorite.description
    assert "`movie_id`: from `search_movie`" in favorite.description  # a body id is found too


def test_a_name_finds_the_id_of_the_schema_it_names_and_a_bare_noun_takes_a_field_of_its_own_type() -> None:
    tools = toolset(
        """
        paths:
          /customers:
            get:
              operationId: listCustomers
              responses:
                '200':
                  description: customers
                  content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Customer'}}}}
          /orders:
            post:
              operationId: createOrder
              requestBody:
                content:
                  application/json:
                    schema: {type: object, required: [customer_id], properties: {customer_id: {type: string}}}
              responses: {'201': {description: created}}
          /user/repos:
            get:
              operationId: listRepos
              responses:
                '200':
                  description: repositories
                  content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Repository'}}}}
          /repos/{owner}/{repo}/issues:
            get:
              operationId: listIssues
              parameters:
                - {name: owner, in: path, required: true, schema: {type: string}}
                - {name: repo, in: path, required: true, schema: {type: string}}
              responses: {'200': {description: issues}}
        components:
          schemas:
            Customer: {type: object, properties: {id: {type: string}, email: {type: string}}}
            User: {type: object, properties: {id: {type: integer}, login: {type: string}}}
            Repository:
              type: object
              properties: {id: {type: integer}, name: {type: string}, owner: {$ref: '#/components/schemas/User'}}
        """
    )
    order, issues = tools.get("createOrder"), tools.get("listIssues")
    assert order is not None and issues is not None
    assert producers_of(order, "customer_id") == [("listCustomers", "[].id", "resource")]
    assert "`customer_id`: from `listCustomers` (`[].id`)." in order.description
    assert producers_of(issues, "repo") == [("listRepos", "[].name", "resource")]  # its `id` is an integer
    assert producers_of(issues, "owner") == [("listRepos", "[].owner.login", "name")]


def test_the_lines_keep_within_the_description_budget_and_the_description_is_shortened_around_them() -> None:
    long = MOVIES.replace(
        "summary: Cast and crew of a movie, the director among them",
        "summary: Cast and crew\n      description: " + "Everyone who worked on the movie, in order. " * 20,
    )
    credits = convert(parse_document(long), ConvertOptions(description_max=200)).get("movie_credits")
    assert credits is not None
    assert len(credits.description) <= 200
    assert credits.description.endswith(
        "`movie_id`: from `search_movie` or `movie_top_rated` (`results[].id`)."
    )
    assert credits.description.startswith("Cast and crew.")


def test_the_lines_name_tools_by_their_final_names_and_follow_a_description_from_the_config() -> None:
    options = ConvertOptions(
        overrides={
            "search_movie": ToolOverride(name="find_movies"),
            "movie_credits": ToolOverride(description="Who made the movie."),
        }
    )
    credits = movies(options).get("movie_credits")
    assert credits is not None
    assert credits.description == (
        "Who made the movie.\n\n`movie_id`: from `find_movies` or `movie_top_rated` (`results[].id`)."
    )


def test_with_provenance_off_no_tool_knows_or_says_where_its_ids_come_from() -> None:
    for tool in movies(ConvertOptions(provenance=False)).tools:
        assert tool.provenance == () and tool.provenance_note == ""
        assert "from `" not in tool.description


@pytest.mark.parametrize(
    ("name", "schema", "identifying"),
    [
        ("status", {"type": "string", "enum": ["open", "closed"]}, False),
        ("day", {"type": "string", "format": "date"}, False),
        ("project_id", {"type": "string"}, True),
        ("page", {"type": "integer"}, False),
        ("channel", {"type": "string", "description": "Conversation ID to fetch history for."}, True),
        ("token", {"type": "string", "format": "uuid"}, True),
    ],
)
def test_which_query_arguments_identify_something(
    name: str, schema: dict[str, object], identifying: bool
) -> None:
    import json

    tools = toolset(
        f"""
        paths:
          /things:
            get:
              operationId: listThings
              parameters: [{{name: {name}, in: query, schema: {json.dumps(schema)}}}]
              responses: {{'200': {{description: ok}}}}
          /things/{{thing}}:
            get:
              operationId: getThing
              parameters: [{{name: thing, in: path, required: true, schema: {{type: string}}}}]
              responses: {{'200': {{description: ok}}}}
        """
    )
    listing = tools.get("listThings")
    assert listing is not None
    from specbridge.tools._provenance import identifying as identifying_of

    assert bool(identifying_of(listing)) == identifying
    thing = tools.get("getThing")
    assert thing is not None and [want.argument.name for want in identifying_of(thing)] == ["thing"]
