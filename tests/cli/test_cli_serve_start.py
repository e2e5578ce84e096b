"""`specbridge serve` says at start what will fail (one warning per problem; `--strict-start` refuses to
start), and every line of its stderr is a log record: JSON, or text with `--log-format text`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from specbridge.cli import app
from specbridge.cli._app import EXIT_UNREADABLE

SHOP = str(Path(__file__).resolve().parents[2] / "src" / "specbridge" / "examples" / "shop.openapi.yaml")
LOCAL_ONLY = """openapi: 3.1.0
info: {title: Local, version: "1"}
servers: [{url: "http://localhost:8080"}]
paths:
  /ping:
    get: {operationId: ping, summary: Answers pong., responses: {"200": {description: ok}}}
"""


def config(tmp_path: Path, spec: str, extra: str = "") -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text(f"apis:\n  shop:\n    spec: {spec}\n{extra}")
    return path


def serve(*words: str, env: dict[str, str] | None = None) -> Result:
    # Over stdio with an empty stdin: the gateway starts, says what it says, and ends as stdin closes.
    return CliRunner().invoke(app, ["serve", *words], input="", env=env)


def records(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stderr.splitlines()]


def test_an_unset_secret_is_one_warning_and_serving_goes_on(tmp_path: Path) -> None:
    path = config(tmp_path, SHOP, "    auth: {type: bearer, secret: env:SPECBRIDGE_TEST_UNSET}\n")
    result = serve("--config", str(path), env={"SPECBRIDGE_TEST_UNSET": ""})
    assert result.exit_code == 0, result.stderr
    [warning] = [record for record in records(result) if record["level"] == "warning"]
    assert warning["code"] == "secret-unavailable" and warning["api"] == "shop"
    assert "SPECBRIDGE_TEST_UNSET is empty" in warning["message"]


def test_a_set_secret_and_a_public_server_give_no_warning(tmp_path: Path) -> None:
    path = config(tmp_path, SHOP, "    auth: {type: bearer, secret: env:SPECBRIDGE_TEST_SET}\n")
    result = serve("--config", str(path), env={"SPECBRIDGE_TEST_SET": "s3cret-value"})
    assert result.exit_code == 0, result.stderr
    assert [record for record in records(result) if record["level"] != "info"] == []
    assert "s3cret-value" not in result.stderr


def test_a_document_whose_only_server_is_local_warns_that_no_base_url_is_usable(tmp_path: Path) -> None:
    spec = tmp_path / "local.yaml"
    spec.write_text(LOCAL_ONLY)
    result = serve(str(spec))
    assert result.exit_code == 0, result.stderr
    [warning] = [record for record in records(result) if record["level"] == "warning"]
    assert warning["code"] == "base-url-missing"
    assert "http://localhost:8080" in warning["message"] and "--base-url" in warning["message"]


def test_strict_start_refuses_to_start_with_the_problems_logged(tmp_path: Path) -> None:
    path = config(tmp_path, SHOP, "    auth: {type: bearer, secret: file:./absent-token}\n")
    result = serve("--config", str(path), "--strict-start")
    assert result.exit_code == EXIT_UNREADABLE
    errors = [record for record in records(result) if record["level"] == "error"]
    assert [record["code"] for record in errors] == ["secret-unavailable", "config-invalid"]
    assert "--strict-start" in errors[-1]["message"]


def test_log_format_text_writes_readable_lines(tmp_path: Path) -> None:
    spec = tmp_path / "local.yaml"
    spec.write_text(LOCAL_ONLY)
    result = serve(str(spec), "--log-format", "text")
    lines = result.stderr.splitlines()
    assert lines and not any(line.startswith("{") for line in lines)
    assert any(" warning " in line and "code=base-url-missing" in line for line in lines)


@pytest.mark.parametrize(("level", "shown"), [("info", {"info", "warning"}), ("warning", {"warning"})])
def test_log_level_sets_the_least_severe_line(tmp_path: Path, level: str, shown: set[str]) -> None:
    spec = tmp_path / "local.yaml"
    spec.write_text(LOCAL_ONLY)
    result = serve(str(spec), "--log-level", level)
    assert {record["level"] for record in records(result)} == shown


def test_an_unknown_client_is_a_config_error_exit_3(tmp_path: Path) -> None:
    result = serve("--config", str(config(tmp_path, SHOP)), "--client", "nobody")
    assert result.exit_code == EXIT_UNREADABLE
    [record] = records(result)
    assert record["code"] == "config-invalid" and "--client" in record["message"]


OAUTH_API = (
    "    auth: {type: oauth2_client_credentials, token_url: 'https://auth.example.com/token', "
    "client_id: gw, client_secret: env:SPECBRIDGE_TEST_CLIENT_SECRET}\n"
    "store_key: env:SPECBRIDGE_TEST_STORE_KEY\n"
)


def test_a_short_store_key_is_a_start_warning_and_an_error_under_strict_start(tmp_path: Path) -> None:
    path = config(tmp_path, SHOP, OAUTH_API)
    env = {"SPECBRIDGE_TEST_CLIENT_SECRET": "client-s3cret", "SPECBRIDGE_TEST_STORE_KEY": "short-key"}
    result = serve("--config", str(path), env=env)
    assert result.exit_code == 0, result.stderr
    [warning] = [record for record in records(result) if record["level"] == "warning"]
    assert warning["code"] == "secret-unavailable" and warning["api"] == "shop"
    assert warning["message"].startswith("store_key: the environment variable SPECBRIDGE_TEST_STORE_KEY")
    assert "fewer than 32 characters" in warning["message"] and "short-key" not in result.stderr
    result = serve("--config", str(path), "--strict-start", env=env)
    assert result.exit_code == EXIT_UNREADABLE
    errors = [record for record in records(result) if record["level"] == "error"]
    assert [record["code"] for record in errors] == ["secret-unavailable", "config-invalid"]
    env["SPECBRIDGE_TEST_STORE_KEY"] = "k" * 44
    result = serve("--config", str(path), "--strict-start", env=env)
    assert result.exit_code == 0, result.stderr
