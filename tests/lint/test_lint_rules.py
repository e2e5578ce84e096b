"""Each rule at its boundary, on small documents."""

from __future__ import annotations

from typing import Any

from specbridge.config import ApiConfig, CodeModeConfig, ToolConfig
from specbridge.lint import Registry, Severity, default_registry
from specbridge.lint._rules_shape import levels

from ._lint_helpers import document, json_body, nested, only, operation, rules, run


def clean() -> dict[str, Any]:
    return document(
        {
            "/widgets/{widgetId}": {
                "get": operation(
                    "getWidget",
                    parameters=[
                        {"name": "widgetId", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                )
            }
        }
    )


def test_a_clean_document_has_no_findings() -> None:
    assert run(clean()).findings == ()


def test_an_operation_without_operation_id_is_name_missing() -> None:
    report = run(document({"/search": {"get": operation(None)}}))
    [finding] = only(report, "name-missing")
    assert finding.tool == "get_search"
    assert finding.operation == "GET /search"


def test_a_dotted_operation_id_is_name_charset_and_points_at_the_operation_id() -> None:
    report = run(document({"/users": {"get": operation("users.list")}}))
    [finding] = only(report, "name-charset")
    assert finding.pointer == "/paths/~1users/get/operationId"
    assert finding.line is not None


def test_an_x_mcp_name_is_checked_instead_of_the_operation_id() -> None:
    report = run(document({"/users": {"get": operation("listUsers", **{"x-mcp": {"name": "users list"}})}}))
    [finding] = only(report, "name-charset")
    assert finding.pointer == "/paths/~1users/get/x-mcp/name"


def test_a_name_of_64_characters_passes_and_65_is_name_length() -> None:
    assert "name-length" not in rules(run(document({"/a": {"get": operation("a" * 64)}})))
    assert "name-length" in rules(run(document({"/a": {"get": operation("a" * 65)}})))


def test_two_operations_with_one_operation_id_are_name_duplicate_once() -> None:
    report = run(document({"/a": {"get": operation("same")}, "/b": {"get": operation("same")}}))
    [finding] = only(report, "name-duplicate")
    assert finding.operation == "GET /b"


def test_a_put_whose_body_repeats_the_path_identifier_is_a_collision_on_the_body_argument() -> None:
    put = operation(
        "updateUser",
        parameters=[{"name": "username", "in": "path", "required": True, "schema": {"type": "string"}}],
        requestBody=json_body({"type": "object", "properties": {"username": {"type": "string"}}}),
    )
    report = run(document({"/users/{username}": {"put": put}}))
    [finding] = only(report, "collision")
    assert finding.argument == "body_username"
    assert finding.pointer.endswith("/schema/properties/username")


def test_different_names_in_path_and_body_are_no_collision() -> None:
    put = operation(
        "updateUser",
        parameters=[{"name": "userId", "in": "path", "required": True, "schema": {"type": "string"}}],
        requestBody=json_body({"type": "object", "properties": {"username": {"type": "string"}}}),
    )
    assert "collision" not in rules(run(document({"/users/{userId}": {"put": put}})))


def depth_report(schema: dict[str, Any]) -> set[str]:
    return rules(run(document({"/things": {"post": operation("makeThing", requestBody=json_body(schema))}})))


def test_a_body_five_levels_deep_passes() -> None:
    assert "depth" not in depth_report(nested(5))


def test_a_body_six_levels_deep_is_reported() -> None:
    assert "depth" in depth_report(nested(6))


def test_a_flat_body_is_depth_zero_and_one_nested_object_is_one() -> None:
    assert levels({"type": "string"}, {}) == (0, "")
    assert levels({"type": "object", "properties": {"b": {"type": "string"}}}, {})[0] == 1


def test_an_all_of_of_flat_objects_adds_no_level() -> None:
    flat = {"type": "object", "properties": {"x": {"type": "string"}}}
    assert levels({"allOf": [flat, flat]}, {})[0] == 1
    assert levels({"type": "object", "allOf": [flat], "oneOf": [flat], "anyOf": [flat]}, {})[0] == 1


def test_arrays_count_as_a_level_and_scalars_do_not() -> None:
    assert levels({"type": "array", "items": {"type": "string"}}, {})[0] == 1
    assert levels({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}, {})[0] == 2


def test_refs_into_defs_are_followed_and_a_cycle_counts_as_too_deep() -> None:
    definitions = {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
    found, route = levels({"$ref": "#/$defs/Node"}, definitions)
    assert found > 5
    assert "Node" in route


def test_a_recursive_body_is_reported_as_too_deep() -> None:
    schema = {"$ref": "#/components/schemas/Node"}
    node = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": schema}},
    }
    data = document({"/nodes": {"post": operation("makeNode", requestBody=json_body(schema))}})
    data["components"] = {"schemas": {"Node": node}}
    assert "depth" in rules(run(data))


def width_report(count: int) -> set[str]:
    parameters = [{"name": f"q{i}", "in": "query", "schema": {"type": "string"}} for i in range(count)]
    return rules(run(document({"/search": {"get": operation("search", parameters=parameters)}})))


def test_fifteen_arguments_pass_and_sixteen_are_width() -> None:
    assert "width" not in width_report(15)
    assert "width" in width_report(16)


def test_a_deprecated_operation_that_does_not_say_so_in_words_is_deprecated_silent() -> None:
    report = run(document({"/old": {"get": operation("oldThing", deprecated=True)}}))
    [finding] = only(report, "deprecated-silent")
    assert finding.pointer == "/paths/~1old/get/deprecated"


def test_a_deprecation_written_in_the_description_passes() -> None:
    op = operation("oldThing", deprecated=True, description="Deprecated: use newThing; sunset 2026-01-01.")
    assert "deprecated-silent" not in rules(run(document({"/old": {"get": op}})))


def test_a_sunset_header_alone_is_deprecated_silent() -> None:
    responses = {
        "200": {
            "description": "ok",
            "headers": {"Sunset": {"schema": {"type": "string"}, "example": "Sat, 01 Nov 2025 00:00:00 GMT"}},
        }
    }
    report = run(document({"/old": {"get": operation("oldThing", responses=responses)}}))
    assert "deprecated-silent" in rules(report)


def test_an_operation_without_summary_or_description_is_description_missing() -> None:
    op = {"operationId": "getThing", "responses": {"200": {"description": "ok"}}}
    assert "description-missing" in rules(run(document({"/thing": {"get": op}})))


def test_a_description_that_restates_the_name_is_reported_and_a_real_one_is_not() -> None:
    lazy = operation("updateUser", summary="Update a user.")
    assert "description-restates-name" in rules(run(document({"/users": {"put": lazy}})))
    real = operation("updateUser", summary="Change a user's email address; returns the updated user.")
    assert "description-restates-name" not in rules(run(document({"/users": {"put": real}})))


def many_tools(count: int) -> dict[str, Any]:
    return document({f"/things{i}": {"get": operation(f"getThing{i}")} for i in range(count)})


def test_forty_tools_pass_and_forty_one_are_catalogue_size() -> None:
    assert "catalogue-size" not in rules(run(many_tools(40)))
    [finding] = only(run(many_tools(41)), "catalogue-size")
    assert "search" in finding.fix


def test_catalogue_size_is_quiet_when_the_api_is_served_in_search_mode() -> None:
    api = ApiConfig(name="api", spec="x.yaml", search="on")
    assert "catalogue-size" not in rules(run(many_tools(41), api=api))


def test_catalogue_size_is_quiet_when_the_api_is_served_in_code_mode_and_its_fix_names_it() -> None:
    api = ApiConfig(name="api", spec="x.yaml", search="off", code_mode=CodeModeConfig(enabled=True))
    assert "catalogue-size" not in rules(run(many_tools(41), api=api))
    [finding] = only(run(many_tools(41)), "catalogue-size")
    assert "code_mode: on" in finding.fix


def test_a_free_form_object_argument_is_strict_incompatible_and_the_finding_names_it() -> None:
    body = json_body(
        {"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": True}}}
    )
    report = run(document({"/things": {"post": operation("makeThing", requestBody=body)}}))
    [finding] = only(report, "strict-incompatible")
    assert finding.severity == Severity.INFO
    assert finding.tool == "makeThing"
    assert finding.argument == "meta"
    assert "/properties/meta is an object with free-form keys" in finding.message
    assert finding.pointer.endswith("/properties/meta")


def test_an_unsupported_format_is_kept_in_the_description_and_is_not_strict_incompatible() -> None:
    body = json_body({"type": "object", "properties": {"site": {"type": "string", "format": "uri"}}})
    report = run(document({"/things": {"post": operation("makeThing", requestBody=body)}}))
    assert "strict-incompatible" not in rules(report)


def test_a_tool_past_strict_modes_enum_limit_is_strict_incompatible_with_the_reason() -> None:
    parameters = [
        {"name": f"p{i}", "in": "query", "schema": {"type": "string", "enum": [f"v{j}" for j in range(300)]}}
        for i in range(4)
    ]
    report = run(document({"/things": {"get": operation("listThings", parameters=parameters)}}))
    [finding] = only(report, "strict-incompatible")
    assert "1204 enum values (strict mode: 1000)" in finding.message
    assert finding.argument is None


def test_overlapping_one_of_branches_are_strict_incompatible() -> None:
    body = json_body(
        {
            "type": "object",
            "properties": {"value": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
        }
    )
    report = run(document({"/things": {"post": operation("makeThing", requestBody=body)}}))
    [finding] = only(report, "strict-incompatible")
    assert "can match the same value" in finding.message
    assert finding.argument == "value"


def test_a_multipart_mixed_body_is_body_unsupported_and_raw_bytes_are_not() -> None:
    mixed = {"content": {"multipart/mixed": {"schema": {"type": "string"}}}}
    assert "body-unsupported" in rules(run(document({"/up": {"post": operation("up", requestBody=mixed)}})))
    raw = {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}
    assert "body-unsupported" not in rules(run(document({"/up": {"post": operation("up", requestBody=raw)}})))


def test_a_required_body_without_content_is_body_unsupported() -> None:
    body = {"required": True, "content": {}}
    assert "body-unsupported" in rules(run(document({"/up": {"post": operation("up", requestBody=body)}})))


def test_a_ref_to_nowhere_is_ref_unresolved() -> None:
    body = json_body({"$ref": "#/components/schemas/Missing"})
    report = run(document({"/up": {"post": operation("up", requestBody=body)}}))
    [finding] = only(report, "ref-unresolved")
    assert finding.severity == Severity.ERROR
    assert finding.pointer.endswith("/$ref")


def test_a_delete_without_approval_is_destructive_unguarded_and_with_approval_passes() -> None:
    data = document({"/things/{id}": {"delete": operation("deleteThing")}})
    assert "destructive-unguarded" in rules(run(data))
    guarded = ApiConfig(name="api", spec="x.yaml", tools={"deleteThing": ToolConfig(requires_approval=True)})
    assert "destructive-unguarded" not in rules(run(data, api=guarded))


def test_an_x_irreversible_post_is_destructive_unguarded() -> None:
    data = document({"/payouts": {"post": operation("sendPayout", **{"x-irreversible": True})}})
    assert "destructive-unguarded" in rules(run(data))


def test_an_api_key_in_the_query_is_credential_in_query() -> None:
    data = clean()
    data["components"] = {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}}}
    [finding] = only(run(data), "credential-in-query")
    assert finding.pointer == "/components/securitySchemes/key"
    assert finding.line is not None


def test_a_pattern_no_validator_compiles_is_pattern_invalid_and_points_at_it() -> None:
    data = clean()
    data["components"] = {
        "schemas": {
            "Code": {"type": "string", "pattern": "^[A-Z]{3}\\Z"},
            "Bag": {"type": "object", "patternProperties": {"[a-": {"type": "string"}}},
            "Fine": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "Named": {"type": "object", "properties": {"pattern": {"type": "string"}}},
        }
    }
    found = only(run(data), "pattern-invalid")
    assert sorted(finding.pointer for finding in found) == [
        "/components/schemas/Bag/patternProperties/[a-",
        "/components/schemas/Code/pattern",
    ]
    assert all(finding.line is not None for finding in found)


def test_document_notes_become_findings_under_their_own_rule() -> None:
    data = clean()
    del data["servers"]
    [finding] = only(run(data), "servers-missing")
    assert finding.severity == Severity.INFO


def test_every_rule_of_the_product_is_registered_on_a_fresh_registry() -> None:
    registry = default_registry()
    expected = {
        "name-missing", "name-charset", "name-length", "name-duplicate", "collision", "depth", "width",
        "deprecated-silent", "description-missing", "description-restates-name", "catalogue-size",
        "strict-incompatible", "body-unsupported", "ref-unresolved", "destructive-unguarded",
        "credential-in-query", "servers-missing", "title-missing", "parameter-invalid", "pattern-invalid",
    }  # fmt: skip
    assert expected <= {rule.id for rule in registry}
    assert default_registry() is not registry


def test_a_registry_refuses_the_same_rule_twice() -> None:
    registry = Registry()
    registry.add("mine", Severity.INFO, "A rule.", lambda context: ())
    try:
        registry.add("mine", Severity.INFO, "A rule.", lambda context: ())
    except ValueError as error:
        assert "mine" in str(error)
    else:
        raise AssertionError("a second registration was accepted")


def test_id_source_missing_names_a_required_id_no_answer_gives_and_is_off_with_provenance() -> None:
    from specbridge.document import parse_document
    from specbridge.lint import lint
    from specbridge.tools import ConvertOptions, convert
    from tests.support.movies import MOVIES

    document = parse_document(MOVIES)
    found = [f for f in lint(convert(document)).findings if f.rule == "id-source-missing"]
    assert [(f.tool, f.argument, f.severity.value) for f in found] == [("add_favorite", "account_id", "info")]
    assert found[0].pointer.endswith("/parameters/0")
    quiet = lint(convert(document, ConvertOptions(provenance=False))).findings
    assert not [f for f in quiet if f.rule == "id-source-missing"]


def test_a_document_whose_answers_give_no_id_at_all_gets_no_id_source_missing() -> None:
    # every id would be flagged: what is missing there is the answers' schemas, not a list or a link
    assert not only(run(clean()), "id-source-missing")
