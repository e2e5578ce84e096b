"""`specbridge call`: one call from the command line, printed; exit 1 on an error result; its arguments
parsed strictly (duplicate keys, non-JSON numbers and non-objects refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from tests.support.documents import DOCUMENT
from tests.support.secret import SECRET
from tests.support.upstream import (
    Upstream,
    json_response,
    text_response,
)


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "test.json"
    path.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    return path


def _config(tmp_path: Path, spec: Path, upstream: Upstream) -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        f"""apis:
  test:
    spec: {spec}
    base_url: {upstream.url}/v1
    auth: {{type: bearer, secret: env:SPECBRIDGE_TEST_SECRET}}
    egress: {{allow: ["{upstream.address}"]}}
""",
        encoding="utf-8",
    )
    return path


def test_call_with_a_config_prints_the_answer(
    tmp_path: Path, spec_file: Path, upstream: Upstream, secret_env: str
) -> None:
    upstream.route("/v1/items/7", json_response({"id": 7, "echo": SECRET}))
    config = _config(tmp_path, spec_file, upstream)
    result = CliRunner().invoke(
        app, ["call", "getItem", "--args", '{"itemId": "7"}', "--config", str(config)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"id": 7, "echo": "[credential]"}
    assert upstream.requests[-1].headers["authorization"] == f"Bearer {SECRET}"


def test_call_with_spec_and_base_url_needs_an_allow_for_loopback(spec_file: Path, upstream: Upstream) -> None:
    refused = CliRunner().invoke(app, ["call", "ping", str(spec_file), "--base-url", upstream.url])
    assert refused.exit_code == 3
    assert "--base-url: the host 127.0.0.1 is in the blocked range 127.0.0.0/8" in refused.output
    assert f"add --allow {upstream.address}" in refused.output
    assert upstream.requests == []
    allowed = CliRunner().invoke(
        app, ["call", "ping", str(spec_file), "--base-url", upstream.url, "--allow", upstream.address]
    )
    assert allowed.exit_code == 0, allowed.output
    assert "authorization" not in upstream.requests[-1].headers


def test_an_error_result_exits_1_with_its_code(spec_file: Path, upstream: Upstream) -> None:
    upstream.route("/ping", text_response("gone", status=410))
    result = CliRunner().invoke(
        app, ["call", "ping", str(spec_file), "--base-url", upstream.url, "--allow", upstream.address]
    )
    assert result.exit_code == 1
    assert "error [upstream-status]: The API answered 410 Gone." in result.output


@pytest.mark.parametrize("args", ['{"itemId": 1, "itemId": 2}', "not json", "[]"])
def test_bad_arguments_on_the_command_line_exit_1_and_send_nothing(
    spec_file: Path, upstream: Upstream, args: str
) -> None:
    result = CliRunner().invoke(
        app,
        [
            "call",
            "getItem",
            str(spec_file),
            "--base-url",
            upstream.url,
            "--allow",
            upstream.address,
            "--args",
            args,
        ],
    )
    assert result.exit_code == 1 and "arguments-invalid" in result.output
    assert upstream.requests == []


def test_an_unknown_tool_exits_1(spec_file: Path, upstream: Upstream) -> None:
    result = CliRunner().invoke(
        app, ["call", "nope", str(spec_file), "--base-url", upstream.url, "--allow", upstream.address]
    )
    assert result.exit_code == 1 and "tool-unknown" in result.output


def test_without_config_base_url_or_document_server_the_way_out_is_explained(spec_file: Path) -> None:
    result = CliRunner().invoke(app, ["call", "ping", str(spec_file)])
    assert result.exit_code == 1
    assert "error [base-url-missing]" in result.stderr and "give --base-url URL" in result.stderr


def test_without_config_or_spec_the_usage_is_explained() -> None:
    result = CliRunner().invoke(app, ["call", "ping"])
    assert result.exit_code == 2 and "--config" in result.output


def test_a_tool_that_requires_approval_is_called_only_with_approve(
    tmp_path: Path, spec_file: Path, upstream: Upstream, secret_env: str
) -> None:
    upstream.route("/v1/items/7", json_response({"id": 7}))
    config = _config(tmp_path, spec_file, upstream)
    config.write_text(config.read_text() + "    tools:\n      getItem: {requires_approval: true}\n")
    arguments = ["call", "getItem", "--args", '{"itemId": "7"}', "--config", str(config)]
    refused = CliRunner().invoke(app, arguments)
    assert refused.exit_code == 1
    assert "error [approval-required]" in refused.output
    assert "run it again with --approve to approve this call of getItem" in refused.stderr
    assert upstream.requests == []
    approved = CliRunner().invoke(app, [*arguments, "--approve"])
    assert approved.exit_code == 0, approved.output
    assert [request.target for request in upstream.requests] == ["/v1/items/7"]


def test_call_without_base_url_goes_to_the_documents_server(tmp_path: Path, upstream: Upstream) -> None:
    upstream.route("/v2/ping", json_response({"pong": True}))
    spec = tmp_path / "served.json"
    spec.write_text(json.dumps({**DOCUMENT, "servers": [{"url": f"{upstream.url}/v2"}]}), encoding="utf-8")
    result = CliRunner().invoke(app, ["call", "ping", str(spec), "--allow", upstream.address])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"pong": True}
    assert upstream.requests[-1].path == "/v2/ping"


def test_a_local_document_server_without_allow_says_how_to_reach_it(
    tmp_path: Path, upstream: Upstream
) -> None:
    spec = tmp_path / "local.json"
    spec.write_text(json.dumps({**DOCUMENT, "servers": [{"url": upstream.url}]}), encoding="utf-8")
    result = CliRunner().invoke(app, ["call", "ping", str(spec)])
    assert result.exit_code == 1
    assert "error [base-url-missing]" in result.stderr
    assert "--allow HOST:PORT" in result.stderr
    assert upstream.requests == []


def test_duplicate_keys_in_command_line_arguments_are_refused() -> None:
    from specbridge._errors import ArgumentError
    from specbridge.cli._call import parse_arguments

    with pytest.raises(ArgumentError):
        parse_arguments('{"itemId": "1", "itemId": "2"}')


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "[1]", "{"])
def test_non_json_numbers_and_non_objects_in_command_line_arguments_are_refused(text: str) -> None:
    from specbridge._errors import ArgumentError
    from specbridge.cli._call import parse_arguments

    with pytest.raises(ArgumentError):
        parse_arguments(text)


def test_format_json_prints_the_mcp_result_with_structured_content(
    tmp_path: Path, spec_file: Path, upstream: Upstream, secret_env: str
) -> None:
    upstream.route("/v1/items/7", json_response({"id": 7}))
    config = _config(tmp_path, spec_file, upstream)
    arguments = ["call", "getItem", "--args", '{"itemId": "7"}', "--config", str(config), "--format", "json"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["structuredContent"] == {"id": 7}
    assert printed["isError"] is False
    assert json.loads(printed["content"][0]["text"]) == {"id": 7}


def test_format_json_prints_an_error_result_on_stdout_and_exits_1(
    tmp_path: Path, spec_file: Path, upstream: Upstream, secret_env: str
) -> None:
    upstream.route("/v1/items/7", json_response({"message": "no such item"}, status=404))
    config = _config(tmp_path, spec_file, upstream)
    arguments = ["call", "getItem", "--args", '{"itemId": "7"}', "--config", str(config), "--format", "json"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 1
    printed = json.loads(result.stdout)
    assert printed["isError"] is True
    assert printed["content"][0]["text"].startswith("[upstream-status]")


def test_call_of_an_oauth_api_uses_the_token_the_gateway_keeps_in_the_store(
    tmp_path: Path, upstream: Upstream, glewlwyd: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.glewlwyd import Glewlwyd
    from tests.support.oauth_api import API_SCOPE, STORE_KEY, new_client, oauth_config, protect, token_url

    assert isinstance(glewlwyd, Glewlwyd)
    protect(upstream, glewlwyd, "/notes")
    client_id, secret = new_client(glewlwyd, grants=["client_credentials"])
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    monkeypatch.setenv("SHOP_CLIENT_SECRET", secret)
    auth = {"type": "oauth2_client_credentials", "token_url": token_url(glewlwyd), "client_id": client_id,
            "client_secret": "env:SHOP_CLIENT_SECRET", "scopes": [API_SCOPE]}  # fmt: skip
    config = oauth_config(tmp_path, upstream, glewlwyd, auth=auth)
    for _ in range(2):  # the second finds the token in the store
        result = CliRunner().invoke(app, ["call", "listNotes", "--config", str(config)])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["seen"] == "Bearer [credential]"
    assert glewlwyd.tokens_issued(client_id) == 1
    assert len({request.headers["authorization"] for request in upstream.requests}) == 1
