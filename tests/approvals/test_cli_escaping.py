"""`specbridge approvals list/show` never print a model's invisible or bidi characters raw: each is its
JSON escape, a `!` line names them, and `--format json` is the same JSON value spelled with escapes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.config import load_config
from specbridge.service import ApprovalGate, config_store
from specbridge.store import Approval

RLO, PDF, ZWSP, CSI = "\u202e", "\u202c", "\u200b", "\x9b"
ARGUMENTS = {"amount": f"{RLO}0001{PDF}", "orderId": f"o{ZWSP}-1", "note": f"{CSI}2J"}


def pending(config_path: Path, arguments: dict[str, Any]) -> Approval:
    config = load_config(config_path)

    async def run() -> Approval:
        async with config_store(config) as store:
            desk = ApprovalGate(store, config).desk
            approval = await desk.for_api("shop").request("shop", "refundOrder", "bot", arguments, {})
            return await desk.reject(approval.id, "alice", f"no{RLO}pe")

    return asyncio.run(run())


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_show_prints_each_hidden_character_as_an_escape_and_names_them(config_path: Path) -> None:
    approval = pending(config_path, ARGUMENTS)
    out = run("approvals", "show", approval.id, "--config", str(config_path))
    for raw in (RLO, PDF, ZWSP, CSI):
        assert raw not in out
    assert '"amount": "\\u202e0001\\u202c"' in out
    assert '"orderId": "o\\u200b-1"' in out
    assert '"note": "\\u009b2J"' in out
    assert 'reason:      "no\\u202epe"' in out
    (note,) = [line for line in out.splitlines() if line.startswith("! ")]
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in note and "U+200B ZERO WIDTH SPACE" in note


def test_list_marks_an_approval_whose_values_hide_characters(config_path: Path) -> None:
    marked = pending(config_path, ARGUMENTS)
    plain = pending(config_path, {"orderId": "o-2"})
    out = run("approvals", "list", "--status", "all", "--config", str(config_path))
    assert RLO not in out
    (line,) = [line for line in out.splitlines() if line.startswith(marked.id)]
    assert "!invisible-characters" in line and 'reason="no\\u202epe"' in line
    (other,) = [line for line in out.splitlines() if line.startswith(plain.id)]
    assert "!invisible-characters" not in other


@pytest.mark.parametrize("command", ["show", "list"])
def test_json_output_is_the_same_value_with_the_hidden_characters_escaped(
    config_path: Path, command: str
) -> None:
    approval = pending(config_path, ARGUMENTS)
    args = ["show", approval.id] if command == "show" else ["list", "--status", "all"]
    out = run("approvals", *args, "--format", "json", "--config", str(config_path))
    assert RLO not in out and ZWSP not in out and CSI not in out
    data = json.loads(out)
    shown = data if command == "show" else data["approvals"][0]
    assert shown["arguments"] == ARGUMENTS
    assert shown["reason"] == f"no{RLO}pe"
