"""docs/errors.md's `extra-missing` lists what the light form (`pip install specbridge`, the built wheel
in a clean venv) runs and what needs the gateway; each command of each list is run there, so a command
added to either list without one here fails, and a list that is wrong fails too."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

import pytest

from specbridge.webhooks import secret_key, signed_headers
from tests.support.light import run_light

from ._reading import ROOT

ERRORS = ROOT / "docs" / "errors.md"
EXAMPLE = str(ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml")
SECRET = "whsec_" + base64.b64encode(b"a test secret of thirty-two byte").decode()


def _paragraph() -> str:
    text = ERRORS.read_text(encoding="utf-8")
    return text.split("### `extra-missing`", 1)[1].split("###", 1)[0]


def light_commands() -> list[str]:
    """The backticked commands in the parenthesis after "the light form"."""
    inside = re.search(r"the light form \(([^)]*)\)", _paragraph())
    assert inside is not None, "docs/errors.md, extra-missing: no list of the light form's commands"
    return re.findall(r"`([^`]+)`", inside.group(1))


def gateway_commands() -> list[str]:
    """The backticked commands named before "need the gateway"."""
    before = _paragraph().split("need the gateway", 1)[0].split("the light form (", 1)[1].split(")", 1)[1]
    return re.findall(r"`([^`]+)`", before)


def delivery(folder: Path) -> Path:
    body = '{"type":"call.completed","data":{"id":"abc"}}'
    headers = signed_headers("msg_1", int(time.time()), body.encode(), [secret_key(SECRET)])
    path = folder / "delivery.json"
    path.write_text(json.dumps({"headers": headers, "body": body}))
    return path


# How each command the lists may name is run for real (exit status 0, or 1 for lint's findings).
LIGHT_RUNS = {
    "lint": lambda folder: ["lint", EXAMPLE],
    "tools": lambda folder: ["tools", EXAMPLE, "--format", "openai"],
    "keys new": lambda folder: ["keys", "new", "--client", "ci"],
    "webhooks verify": lambda folder: ["webhooks", "verify", str(delivery(folder)), "--secret", "env:HOOK"],
    "install --transport http": lambda folder: ["install", "cursor", "--transport", "http", "--print"],
}
GATEWAY_RUNS = {
    "serve": ["serve", EXAMPLE],
    "call": ["call", "listProducts", EXAMPLE],
    "demo": ["demo", "--once"],
    "approvals": ["approvals", "list", "--config", "specbridge.yaml"],
    "store": ["store", "check", "--config", "specbridge.yaml"],
}


def test_the_lists_name_only_commands_this_test_runs() -> None:
    assert sorted(light_commands()) == sorted(LIGHT_RUNS)
    assert sorted(gateway_commands()) == sorted(GATEWAY_RUNS)


@pytest.mark.parametrize("command", sorted(LIGHT_RUNS))
def test_each_light_command_runs_in_the_light_form(light: Path, tmp_path: Path, command: str) -> None:
    done = run_light(light, *LIGHT_RUNS[command](tmp_path), env={"HOOK": SECRET})
    assert "extra-missing" not in done.stderr
    assert done.returncode in ((0, 1) if command == "lint" else (0,)), done.stderr


@pytest.mark.parametrize("command", sorted(GATEWAY_RUNS))
def test_each_gateway_command_names_the_extra_in_the_light_form(light: Path, command: str) -> None:
    done = run_light(light, *GATEWAY_RUNS[command])
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("error [extra-missing]: ")
    assert done.stderr.rstrip().endswith("pip install 'specbridge[gateway]'")


def test_install_over_stdio_in_the_light_form_is_refused_not_written(light: Path, tmp_path: Path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text("{}\n")
    done = run_light(light, "install", "cursor", EXAMPLE, "--file", str(target))
    assert done.returncode == 3
    assert done.stderr.startswith("error [extra-missing]: the entry starts `specbridge serve`, which needs")
    assert target.read_text() == "{}\n"
