"""OpenAPI `links`: which answer value a link names for another operation's parameter."""

from __future__ import annotations

import pytest

from specbridge.tools._links import answer_field
from tests.support.openapi import toolset


@pytest.mark.parametrize(
    ("expression", "field"),
    [
        ("$response.body#/id", "id"),
        ("$response.body#/results/0/id", "results[].id"),
        ("$response.body#/0/id", "[].id"),
        ("$response.body#/owner/username", "owner.username"),
        ("$response.body", "(the answer)"),
        ("{$response.body#/id}", "id"),
        ("$response.header.Location", "Location header"),
        ("$request.path.id", None),
        ("42", None),
        (42, None),
    ],
)
def test_only_a_value_of_the_answer_is_a_field_a_link_names(expression: object, field: str | None) -> None:
    assert answer_field(expression) == field


def test_a_link_by_operation_ref_and_one_through_components_both_name_their_producer() -> None:
    tools = toolset(
        """
        paths:
          /users/{username}:
            get:
              operationId: getUser
              parameters: [{name: username, in: path, required: true, schema: {type: string}}]
              responses:
                '200':
                  description: the user
                  links:
                    repos: {$ref: '#/components/links/Repos'}
          /repos/{owner}:
            get:
              operationId: listRepos
              parameters: [{name: owner, in: path, required: true, schema: {type: string}}]
              responses:
                '200':
                  description: repositories
                  links:
                    first:
                      operationRef: '#/paths/~1repos~1{owner}~1{slug}/get'
                      parameters: {path.slug: '$response.body#/0/slug', owner: '$request.path.owner'}
          /repos/{owner}/{slug}:
            get:
              operationId: getRepo
              parameters:
                - {name: owner, in: path, required: true, schema: {type: string}}
                - {name: slug, in: path, required: true, schema: {type: string}}
              responses: {'200': {description: the repository}}
        components:
          links:
            Repos:
              operationId: listRepos
              parameters: {owner: '$response.body#/login'}
        """
    )
    repos, repo = tools.get("listRepos"), tools.get("getRepo")
    assert repos is not None and repo is not None
    owner = next(entry for entry in repos.provenance if entry.argument == "owner")
    assert [(p.tool, p.field, p.kind) for p in owner.producers] == [("getUser", "login", "link")]
    slug = next(entry for entry in repo.provenance if entry.argument == "slug")
    assert (slug.producers[0].tool, slug.producers[0].field, slug.producers[0].kind) == (
        "listRepos",
        "[].slug",
        "link",
    )
