"""`specbridge approvals list|show|approve|reject` and `specbridge keys new --admin`, run as the real
command on a config whose SQLite store sits next to it, with no gateway running."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from specbridge.cli import app
from specbridge.config import load_config
from specbridge.service import ApprovalGate, config_store
from specbridge.store import Approval, Status

ARGS = {"orderId": "o-1", "amount": 25}


def on_store(config_path: Path, work: Any) -> Any:
    config = load_config(config_path)

    async def run() -> Any:
        async with config_store(config) as store:
            return await work(ApprovalGate(store, config).desk)

    return asyncio.run(run())


def pending(config_path: Path, arguments: dict[str, Any] = ARGS) -> Approval:
    return on_store(
        config_path,
        lambda desk: desk.for_api("shop").request(
            "shop", "refundOrder", "bot", arguments, {"body.currency": "EUR"}
        ),
    )


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_list_shows_pending_approvals_as_text_and_json(config_path: Path) -> None:
    approval = pending(config_path)
    text = run("approvals", "list", "--config", str(config_path))
    assert text.exit_code == 0
    assert approval.id in text.output and "shop/refundOrder" in text.output and "client=bot" in text.output
    listed = run("approvals", "list", "--status", "pending", "--format", "json", "--config", str(config_path))
    (shown,) = json.loads(listed.output)["approvals"]
    assert (shown["id"], shown["arguments"], shown["bound"]) == (approval.id, ARGS, {"body.currency": "EUR"})
    assert (config_path.parent / "state" / "approvals.db").is_file()  # relative to the config, not the cwd


def test_show_prints_arguments_and_bound_values_apart(config_path: Path) -> None:
    approval = pending(config_path)
    result = run("approvals", "show", approval.id, "--config", str(config_path))
    assert result.exit_code == 0
    arguments, bound = result.output.split("bound values")
    assert '"orderId": "o-1"' in arguments and "EUR" not in arguments
    assert '"body.currency": "EUR"' in bound
    as_json = json.loads(
        run("approvals", "show", approval.id, "--format", "json", "--config", str(config_path)).output
    )
    assert as_json["status"] == "pending"


def test_approve_answers_once_and_a_second_answer_is_approval_answered(config_path: Path) -> None:
    approval = pending(config_path)
    first = run("approvals", "approve", approval.id, "--by", "alice", "--config", str(config_path))
    assert first.exit_code == 0
    assert f"approved {approval.id}" in first.output
    stored = on_store(config_path, lambda desk: desk.get(approval.id))
    assert (stored.status, stored.answered_by) == (Status.APPROVED, "alice")
    second = run("approvals", "reject", approval.id, "--reason", "no", "--config", str(config_path))
    assert second.exit_code == 1
    assert second.output.startswith("error [approval-answered]: ")
    assert "Traceback" not in second.output


def test_reject_keeps_the_reason_and_the_default_answerer_is_the_cli_user(config_path: Path) -> None:
    approval = pending(config_path)
    result = run(
        "approvals", "reject", approval.id, "--reason", "ask the customer first", "--config", str(config_path)
    )
    assert result.exit_code == 0
    stored = on_store(config_path, lambda desk: desk.get(approval.id))
    assert (stored.status, stored.reason) == (Status.REJECTED, "ask the customer first")
    assert (stored.answered_by or "").startswith("cli")
    listed = run("approvals", "list", "--status", "rejected", "--config", str(config_path))
    assert '"ask the customer first"' in listed.output


def test_an_answer_on_the_command_line_is_a_line_of_the_configs_audit_log(config_path: Path) -> None:
    config_path.write_text(
        config_path.read_text(encoding="utf-8") + "audit: {path: audit.jsonl}\n", encoding="utf-8"
    )
    approval = pending(config_path)
    result = run(
        "approvals",
        "reject",
        approval.id,
        "--reason",
        "not today",
        "--by",
        "ops-ann",
        "--config",
        str(config_path),
    )
    assert result.exit_code == 0
    (line,) = [json.loads(text) for text in (config_path.parent / "audit.jsonl").read_text().splitlines()]
    assert {key: line[key] for key in ("event", "answer", "by", "via", "approval", "tool", "status")} == {
        "event": "approval answered",
        "answer": "reject",
        "by": "ops-ann",
        "via": "cli",
        "approval": approval.id,
        "tool": "refundOrder",
        "status": "rejected",
    }
    assert "not today" not in json.dumps(line) and "o-1" not in json.dumps(line)


def test_an_audit_log_that_cannot_be_written_stops_the_answer_before_it_is_given(config_path: Path) -> None:
    config_path.write_text(
        config_path.read_text(encoding="utf-8") + "audit: {path: no-such-folder/audit.jsonl}\n",
        encoding="utf-8",
    )
    approval = pending(config_path)
    result = run("approvals", "approve", approval.id, "--config", str(config_path))
    assert result.exit_code == 3 and result.output.startswith("error [audit-unwritable]: ")
    assert on_store(config_path, lambda desk: desk.get(approval.id)).status is Status.PENDING


def test_an_empty_reason_is_approval_reason_missing(config_path: Path) -> None:
    approval = pending(config_path)
    result = run("approvals", "reject", approval.id, "--reason", " ", "--config", str(config_path))
    assert (result.exit_code, result.output.split("]")[0]) == (1, "error [approval-reason-missing")


def test_an_unknown_id_is_one_coded_line(config_path: Path) -> None:
    result = run("approvals", "approve", "no-such-id", "--config", str(config_path))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error [approval-not-found]: there is no approval 'no-such-id'"
    ]


def test_an_unreachable_store_is_store_unavailable_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("store: postgresql://nobody@127.0.0.1:1/none\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "specbridge", "approvals", "list", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3  # a store the config names that cannot be opened is the config's problem
    assert done.stderr.startswith("error [store-unavailable]: ")
    assert "Traceback" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_missing_config_is_config_not_found(tmp_path: Path) -> None:
    result = run("approvals", "list", "--config", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 3
    assert result.output.startswith("error [config-not-found]")


def test_the_real_command_approves_in_a_subprocess(config_path: Path) -> None:
    approval = pending(config_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "specbridge",
            "approvals",
            "approve",
            approval.id,
            "--config",
            str(config_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert on_store(config_path, lambda desk: desk.get(approval.id)).status is Status.APPROVED


def test_keys_new_admin_prints_an_admin_key_once_and_its_config_lines() -> None:
    result = run("keys", "new", "--admin", "--admin-id", "alice")
    assert result.exit_code == 0
    key = result.output.splitlines()[0].removeprefix("admin key: ")
    assert key.startswith("sba_")
    assert "admins:\n  alice:\n" in result.output
    assert f'key_sha256: "{hashlib.sha256(key.encode()).hexdigest()}"' in result.output
    assert "clients:" not in result.output


def test_approve_says_who_sends_the_call_and_list_and_show_say_how_a_sent_one_ended(
    config_path: Path,
) -> None:
    approval = pending(config_path)
    approved = run("approvals", "approve", approval.id, "--config", str(config_path))
    assert "a running gateway on this store sends it now (or the next one to start)" in approved.stdout

    async def sent_and_refused(desk: Any) -> None:  # as the gateway's sender leaves it after a 409
        approvals = desk.for_api("shop")
        claimed = await approvals.claim(await approvals.get(approval.id))
        result = {"text": "conflict", "is_error": True, "code": "upstream-status", "status": 409}
        await approvals.finish(claimed, {**result, "structured": None, "image": None}, settle=False)

    on_store(config_path, sent_and_refused)
    listed = run("approvals", "list", "--status", "failed", "--config", str(config_path))
    shown = run("approvals", "show", approval.id, "--config", str(config_path))
    assert f"{approval.id}  failed 409" in listed.stdout
    assert "status:      failed (HTTP 409)" in shown.stdout


def test_with_send_on_retry_approve_says_the_agents_next_call_sends_it(config_path: Path) -> None:
    config_path.write_text(
        config_path.read_text(encoding="utf-8") + "approvals: {send: on_retry}\n", encoding="utf-8"
    )
    approval = pending(config_path)
    approved = run("approvals", "approve", approval.id, "--config", str(config_path))
    assert approved.exit_code == 0
    assert "the agent's next identical call sends it (approvals.send: on_retry)" in approved.stdout


def test_list_counts_every_client_and_pages_past_another_clients_flood(config_path: Path) -> None:
    # The review: one client's 1,010 approvals hid another's older one (`list` stopped at 1,000).
    async def flood(desk: Any) -> Approval:
        lone = await desk.for_api("shop").request("shop", "refundOrder", "shopfront", ARGS, {})
        for number in range(1010):
            await desk.for_api("shop").request("shop", "refundOrder", "bot", {"orderId": f"o-{number}"}, {})
        return lone  # type: ignore[no-any-return]

    lone = on_store(config_path, flood)
    first = run("approvals", "list", "--limit", "1000", "--config", str(config_path))
    assert first.exit_code == 0
    lines = first.output.splitlines()
    assert lines[0] == "1011 pending (by client, longest wait first: shopfront 1, bot 1010)"
    assert lone.id not in first.output and lines[-1].startswith("more may follow: add --after ")
    cursor = lines[-1].rsplit(" ", 1)[1]
    rest = run("approvals", "list", "--limit", "1000", "--after", cursor, "--config", str(config_path))
    assert lone.id in rest.output and "more may follow" not in rest.output
    assert len(rest.output.splitlines()) == 1 + 11
    theirs = run(
        "approvals", "list", "--client", "shopfront", "--format", "json", "--config", str(config_path)
    )
    listed = json.loads(theirs.output)
    assert [item["id"] for item in listed["approvals"]] == [lone.id] and listed["next"] is None
    assert listed["clients"] == [{"client": "shopfront", "count": 1}, {"client": "bot", "count": 1010}]


def test_list_and_show_mark_a_repeat_of_a_call_answered_before(config_path: Path) -> None:
    first = pending(config_path)
    on_store(config_path, lambda desk: desk.reject(first.id, "alice", "not this one"))
    repeat = on_store(
        config_path,
        lambda desk: desk.for_api("shop").request(
            "shop", "refundOrder", "bot", ARGS, {}, fingerprint="f-2", repeat_of=first.id
        ),
    )
    listed = run("approvals", "list", "--config", str(config_path))
    shown = run("approvals", "show", repeat.id, "--config", str(config_path))
    as_json = json.loads(
        run("approvals", "show", repeat.id, "--format", "json", "--config", str(config_path)).output
    )
    assert f"repeat-of={first.id}" in listed.output
    assert f"repeat:      same call as {first.id}, rejected" in shown.output
    assert as_json["repeat_of"] == first.id and as_json["repeat"].startswith(
        f"same call as {first.id}, rejected"
    )
