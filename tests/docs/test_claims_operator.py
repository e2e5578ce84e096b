"""The operator's claims of the docs that a review found false (issue 38, point 8), each now a test: the
sentence is read from the page it is on, and what it says is done. (The light form's list of commands
is tests/docs/test_claims_light_form.py.)"""

from __future__ import annotations

import copy
import json
import logging
import re
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from specbridge import ConfigError, SpecbridgeError, convert, load_document
from specbridge._audit import AuditLog
from specbridge.call import readiness
from specbridge.cli import app
from specbridge.config import config_from_data, load_config
from specbridge.lint import default_registry, lint

from ._reading import ROOT

EXAMPLE = str(ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml")
MARK = "zqvaluezq"


def said(page: str, sentence: str) -> None:
    """`sentence` is on `page` (as written, line breaks aside)."""
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    assert " ".join(sentence.split()) in text, f"{page} no longer says: {sentence}"


def run(*words: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(words), env=env)


def test_a_short_store_key_is_a_start_warning_and_refused_under_strict_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said("docs/configuration-oauth.md", "`serve` says so at start, one warning per such API naming the variable or "
         "file (never the key), and `serve --strict-start` refuses to start")  # fmt: skip
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        f"apis:\n  crm:\n    spec: {EXAMPLE}\n    base_url: https://api.example.com\n    auth: {{type: "
        "oauth2_client_credentials, token_url: 'https://auth.example.com/t', client_id: gw, client_secret: "
        "env:DOC_CLIENT_SECRET}\nstore_key: env:DOC_STORE_KEY\n"
    )
    monkeypatch.setenv("DOC_CLIENT_SECRET", "s")
    api = load_config(path).apis["crm"]
    for key, problems in (("k" * 31, 1), ("k" * 32, 0)):
        monkeypatch.setenv("DOC_STORE_KEY", key)
        found = readiness(api, "https://api.example.com")
        assert len(found) == problems and all(key not in problem.message for problem in found)
    result = run("serve", "--config", str(path), "--strict-start",
                 env={"DOC_STORE_KEY": "short", "DOC_CLIENT_SECRET": "s"})  # fmt: skip
    assert result.exit_code == 3 and "fewer than 32 characters" in result.stderr


def test_the_audit_file_is_made_0600_an_existing_one_keeps_its_mode_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    said("docs/configuration-gateway.md", "A new file is made `0600`; a file that is already there keeps its mode, and "
         "a symlink is followed to its target, which keeps its own")  # fmt: skip
    AuditLog(str(tmp_path / "new.jsonl"))
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o600
    shared = tmp_path / "shared.jsonl"
    shared.write_text("")
    shared.chmod(0o644)
    link = tmp_path / "link.jsonl"
    link.symlink_to(shared)
    with caplog.at_level(logging.WARNING, logger="specbridge.gateway"):
        log = AuditLog(str(link))
        log.write("tool call", {"api": "shop"})
    assert link.is_symlink() and json.loads(shared.read_text())["api"] == "shop"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    [record] = [r for r in caplog.records if r.getMessage() == "audit log open to others"]
    assert record.fields["mode"] == "0644"  # type: ignore[attr-defined]


def test_a_tools_entry_beside_a_config_operation_is_an_error() -> None:
    said("docs/configuration.md", "A `tools.<id>` (or `tools.<name>`) entry for an operation of the config is "
         "an error, whether the operation carries settings or not: one place per tool")  # fmt: skip
    api = {
        "operations": {"ping": {"method": "GET", "url": "https://api.example.com/ping"}},
        "tools": {"ping": {}},
    }
    with pytest.raises(ConfigError) as caught:
        config_from_data({"apis": {"a": api}}, source="specbridge.yaml")
    assert caught.value.key == "apis.a.tools.ping"


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> Any:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, (*path, index))
    else:
        yield path


def test_config_messages_never_repeat_the_value_found(tmp_path: Path) -> None:
    """Every value of configuration.md's whole example replaced, one at a time, by a wrong one: no
    message repeats it (the key path says where)."""
    said("docs/configuration.md", "Messages never repeat the value that was found")
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(apis:\n  orders:.*?)```", text, re.S)
    assert block is not None
    example = yaml.safe_load(block.group(1))
    example["apis"]["orders"]["spec"] = EXAMPLE
    refused = 0
    for path in _leaves(example):
        for wrong in (MARK, f"{MARK}:99999", f"env:{MARK}", f"{MARK}/minute", [MARK]):
            data = copy.deepcopy(example)
            target = data
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = wrong
            try:
                config_from_data(data, source="specbridge.yaml", base_dir=tmp_path)
            except SpecbridgeError as error:
                refused += 1
                assert MARK not in str(error), str(error)
    assert refused > 50
    config = config_from_data({"apis": {}, "lint": {"disable": [MARK]}}, source="specbridge.yaml")
    with pytest.raises(ConfigError) as caught:
        lint(convert(load_document(EXAMPLE)), registry=default_registry(), settings=config.lint)
    assert MARK not in str(caught.value) and caught.value.key == "lint.disable[0]"


def test_the_servers_name_is_specbridge_with_spec_and_specbridge_api_for_a_config(tmp_path: Path) -> None:
    said("docs/serving.md", "The server's name is `specbridge-API` for the API of a config (`--api`, or the "
         "config's only API), else `specbridge` (SPEC, or HTTP without a config)")  # fmt: skip
    config = tmp_path / "specbridge.yaml"
    config.write_text(f"apis:\n  shop: {{spec: {EXAMPLE}, base_url: 'https://api.example.com'}}\n")
    for words, name in (
        ([EXAMPLE, "--base-url", "https://api.example.com"], "specbridge"),
        (["--config", str(config)], "specbridge-shop"),
        (["--transport", "http"], "specbridge"),
    ):
        result = run("install", "cursor", *words, "--print")
        assert result.exit_code == 0, result.stderr
        assert list(json.loads(result.stdout)["mcpServers"]) == [name]


def test_exports_keep_bound_arguments_which_the_gateway_leaves_out(tmp_path: Path) -> None:
    said("README.md", "the gateway's own `tools/list` differs only by what it does for the caller: bound "
         "arguments left out, `idempotency_key` added")  # fmt: skip
    said(
        "docs/keys-and-long-calls.md",
        "like bindings, which the gateway removes), not to the tools `specbridge tools` exports",
    )
    config = tmp_path / "specbridge.yaml"
    config.write_text(
        f"apis:\n  shop:\n    spec: {EXAMPLE}\n    tools:\n      getProduct: {{bindings: {{path.id: p1}}}}\n"
    )
    result = run("tools", "--config", str(config))
    assert result.exit_code == 0, result.stderr
    [tool] = [tool for tool in json.loads(result.stdout)["tools"] if tool["name"] == "getProduct"]
    assert (
        "id" in tool["inputSchema"]["properties"]
        and "idempotency_key" not in tool["inputSchema"]["properties"]
    )


@pytest.mark.parametrize("spec", ["ftp://example.com/openapi.yaml", "file:///tmp/openapi.yaml"])
def test_a_document_url_of_another_scheme_says_what_a_document_may_be(tmp_path: Path, spec: str) -> None:
    said("docs/errors.md", "a document is a file path, an http:// or https:// URL, or `-`")
    result = run("lint", spec)
    assert result.exit_code == 3
    assert "a document is a file path, an http:// or https:// URL, or - for stdin" in result.stderr
    config = tmp_path / "specbridge.yaml"
    config.write_text(f"apis:\n  a: {{spec: '{spec}'}}\n")
    result = run("lint", "--config", str(config))
    assert (
        result.exit_code == 3
        and "apis.a.spec: must be a file path or an http:// or https:// URL" in result.stderr
    )
