"""`specbridge approvals list|show|approve|reject`: answer approvals on the store the config names, with
or without a gateway running (the gateway's waiting calls see the answer within a second).

What a model wrote is shown so it cannot read as something else: invisible and bidi characters
(zero-width, RLO/LRO/PDF, isolates, other format and control characters) are printed as their JSON
escape (`\u202e`) and named on a `!` line below; `--format json` is the same JSON value with those
characters escaped."""

from __future__ import annotations

import contextlib
import getpass
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ._app import app, friendly_errors, store_config_option

if TYPE_CHECKING:
    from ..config import Config

T = TypeVar("T")
STATUSES = (
    "all",
    "pending",
    "approved",
    "rejected",
    "expired",
    "done",
    "failed",
    "outcome_unknown",
)

config_option = store_config_option("The config whose `store:` holds the approvals.")


def _on_desk(config: str | Config, work: Callable[[Any], Awaitable[T]]) -> T:
    """Open the config's store (`config`, or the file it names, read once), run `work(desk)`, close it."""
    from ..config import load_config
    from ..service import ApprovalGate, config_store

    settings = load_config(config) if isinstance(config, str) else config

    async def run() -> T:
        async with config_store(settings) as store:
            return await work(ApprovalGate(store, settings).desk)

    import anyio  # here: the command line loads it only for a command that runs

    return anyio.run(run)


def _answer(config_path: str, answer: str, by: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
    """`work(desk)` answers an approval, recorded as the admin API's and page's answers are: a JSON
    line on stderr, as the gateway logs, and a line of the audit log when the config has `audit:` (one
    that cannot be written stops the answer before it is given). Returns the answer and the config."""
    from .._audit import audit_to
    from ..approvals import log_answer
    from ..config import load_config

    config = load_config(config_path)
    audit_to(config.audit.path)
    try:
        answered = _on_desk(config, work)
        with _json_log():
            log_answer(answered, by, answer, "cli")
    finally:
        audit_to(None)
    return answered, config


@contextlib.contextmanager
def _json_log() -> Iterator[None]:
    """The gateway's log lines (JSON on stderr) for the duration, leaving the process's logging as it was."""
    from .._logging import LOGGER_NAME, JsonFormatter

    logger = logging.getLogger(LOGGER_NAME)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def _who() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _show_text(shown: dict[str, Any]) -> None:
    from ..admin import hidden_in, hidden_note, json_text, reveal

    for key in (
        "id",
        "status",
        "api",
        "tool",
        "client",
        "created_at",
        "expires_at",
        "answered_by",
        "answered_at",
    ):
        if shown.get(key) is not None:
            http = (
                f" (HTTP {shown['upstream_status']})" if key == "status" and shown["upstream_status"] else ""
            )
            click.echo(f"{key + ':':13}{reveal(str(shown[key]))}{http}")
    if shown.get("reason"):
        click.echo(f"{'reason:':13}{json_text(shown['reason'])}")
    if shown.get("repeat"):
        click.echo(f"{'repeat:':13}{reveal(shown['repeat'])} (see it before you answer)")
    click.echo("arguments (from the model):")
    click.echo(_indent(shown["arguments"]))
    click.echo("bound values (from the config; the model never saw them):")
    click.echo(_indent(shown["bound"]))
    if shown.get("result") is not None:
        click.echo("result:")
        click.echo(_indent(shown["result"]))
    hidden = hidden_in(
        json.dumps([shown["arguments"], shown["bound"], shown.get("reason")], ensure_ascii=False)
    )
    if hidden:
        click.echo(f"! contains {hidden_note(hidden)}")


def _indent(value: Any) -> str:
    from ..admin import json_text

    return "\n".join("  " + line for line in json_text(value).splitlines())


def _json_out(value: Any) -> str:
    from ..admin import json_text

    return json_text(value, sort_keys=False)


@app.group("approvals")
def approvals_group() -> None:
    """List and answer approvals of tools with `requires_approval: true`."""


@approvals_group.command("list")
@config_option
@click.option("--status", type=click.Choice(STATUSES), default="pending", show_default=True)
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--client", default=None, help="Only this client's approvals.")
@click.option("--oldest-first", is_flag=True, help="The longest waiting first (newest first otherwise).")
@click.option(
    "--after", default=None, help="The page after this one: the cursor the previous page ended with."
)
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@friendly_errors
def list_command(
    config_path: str,
    status: str,
    limit: int,
    client: str | None,
    oldest_first: bool,
    after: str | None,
    output: str,
) -> None:
    """Approvals, newest first (pending ones by default), a page at a time: every client's count first,
    and the cursor of the next page when there may be more."""
    from ..approvals import approval_json
    from ..store import Cursor, Page, Status

    wanted = None if status == "all" else Status(status)
    from ..admin import hidden_in, json_text, reveal

    cursor = None
    if after is not None and (cursor := Cursor.parse(after)) is None:
        raise click.BadParameter(
            "the cursor a page of this command ended with (`next`)", param_hint="--after"
        )

    async def read(desk: Any) -> tuple[list[Any], list[Any]]:
        found = await desk.list(wanted, limit, Page(client, cursor, oldest_first))
        return found, ([] if wanted is None else await desk.groups(wanted, 0))

    found, groups = _on_desk(config_path, read)
    shown = [approval_json(approval) for approval in found]
    following = Cursor.after(found[-1]).text() if len(found) == limit else None
    if output == "json":
        counts = [{"client": group.client, "count": group.count} for group in groups]
        click.echo(_json_out({"approvals": shown, "next": following, "clients": counts}))
        return
    if groups:
        each = ", ".join(f"{reveal(group.client or '-')} {group.count}" for group in groups)
        click.echo(f"{sum(group.count for group in groups)} {status} (by client, longest wait first: {each})")
    if not shown:
        click.echo(f"no {status} approvals" if status != "all" else "no approvals")
        return
    for item in shown:
        status_shown = f"{item['status']} {item['upstream_status'] or ''}".strip()
        line = (
            f"{item['id']}  {status_shown:<12} {item['api']}/{item['tool']}  client={item['client'] or '-'}"
        )
        line = reveal(line) + f"  created={item['created_at']}"
        if item["reason"]:
            line += f"  reason={json_text(item['reason'])}"
        if item["repeat_of"]:
            line += f"  repeat-of={item['repeat_of']} (same call, `approvals show` says how it ended)"
        if hidden_in(json.dumps([item["arguments"], item["bound"]], ensure_ascii=False)):
            line += "  !invisible-characters (see `approvals show`)"
        click.echo(line)
    if following is not None:
        click.echo(f"more may follow: add --after {following}")


@approvals_group.command("show")
@click.argument("approval_id")
@config_option
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@friendly_errors
def show_command(approval_id: str, config_path: str, output: str) -> None:
    """One approval: the call, its arguments and bound values apart, its answer and result."""
    from ..approvals import approval_json

    async def with_repeat(desk: Any) -> dict[str, Any]:
        approval = await desk.get(approval_id)
        return {**approval_json(approval), "repeat": await desk.repeat(approval)}

    shown = _on_desk(config_path, with_repeat)
    if output == "json":
        click.echo(_json_out(shown))
    else:
        _show_text(shown)


@approvals_group.command("approve")
@click.argument("approval_id")
@config_option
@click.option("--by", default=None, help="Who answers (default: cli:<your user name>).")
@friendly_errors
def approve_command(approval_id: str, config_path: str, by: str | None) -> None:
    """Approve a pending call: sent once, by a running gateway at once (`approvals.send: on_answer`, the
    default; a gateway started later sends it when it starts), or by the agent's next identical call
    (`on_retry`)."""
    by = by or _who()
    answered, config = _answer(config_path, "approve", by, lambda desk: desk.approve(approval_id, by))
    click.echo(f"approved {answered.id} ({answered.api}/{answered.tool}) as {answered.answered_by}")
    if config.approvals_for(answered.api).send == "on_answer":
        click.echo(
            "a running gateway on this store sends it now (or the next one to start); "
            f"`specbridge approvals show {answered.id}` gives its outcome"
        )
    else:
        click.echo("the agent's next identical call sends it (approvals.send: on_retry)")


@approvals_group.command("reject")
@click.argument("approval_id")
@click.option("--reason", required=True, help="Why; the agent reads it to redraft the call.")
@config_option
@click.option("--by", default=None, help="Who answers (default: cli:<your user name>).")
@friendly_errors
def reject_command(approval_id: str, reason: str, config_path: str, by: str | None) -> None:
    """Reject a pending call with a reason; nothing is sent."""
    by = by or _who()
    answered, _ = _answer(config_path, "reject", by, lambda desk: desk.reject(approval_id, by, reason))
    click.echo(f"rejected {answered.id} ({answered.api}/{answered.tool}) as {answered.answered_by}")
