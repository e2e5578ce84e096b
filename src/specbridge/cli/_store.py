"""`specbridge store check`: what the config's store promises, read from the store itself — its
backend and schema version, whether it keeps its data across a restart (Redis `appendonly`/`save`,
PostgreSQL `fsync`), and the gateways' marker (present, lost, or none yet). A store that lost its data
while gateways ran refuses calls that must happen at most once until `--acknowledge` writes a new
marker, which every gateway adopts at its next such call (docs/store.md, "A store that loses its data").
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import click

from ._app import EXIT_FINDINGS, EXIT_OK, app, friendly_errors, store_config_option


@app.group("store")
def store_group() -> None:
    """The config's store: what it keeps, and whether it lost it."""


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _check(config_path: str, acknowledge: bool) -> tuple[list[str], bool]:
    """The report's lines, and whether the store reads as having lost its data (after `acknowledge`)."""
    from ..config import load_config
    from ..service import config_store
    from ..store import ANY, Marker, MarkerKind, persistence_warning

    config = load_config(config_path)
    async with config_store(config) as store:
        found = await store.guarantees()
        marker: Any = await store.read_marker()
        lines = [
            f"store: {store.name} ({_namespace(config.store)})",
            f"backend: {found.backend}, schema version {found.schema}",
        ]
        settings = ", ".join(f"{key} {value!r}" for key, value in found.settings)
        if found.durable is True:
            lines.append(f"persistence: keeps its data across a restart ({settings})")
        else:
            lines.append(f"persistence: {persistence_warning(store.name, found)}")
        lines.append(_marker_line(marker))
        if acknowledge:
            marker = await store.write_marker(Marker.new(MarkerKind.ACKNOWLEDGED, time.time()), replace=ANY)
            lines.append(
                f"acknowledged: new marker {marker.id[:12]} written; gateways on this store take calls "
                "with idempotency keys, approvals and long calls again at their next such call"
            )
        lost = marker is not None and marker.kind is MarkerKind.LOST
    return lines, lost


def _namespace(url: str) -> str:
    """Where in the store this config's records are: the namespace (`?namespace=`, PostgreSQL's schema,
    Redis's key prefix) several configs or test runs share one server by; a SQLite file is its own."""
    from urllib.parse import parse_qsl, urlsplit

    from ..store import DEFAULT_NAMESPACE

    parts = urlsplit(url)
    if parts.scheme.lower() == "sqlite":
        return "a file of its own: no namespace"
    names = [value for key, value in parse_qsl(parts.query, keep_blank_values=True) if key == "namespace"]
    where = "schema" if parts.scheme.lower().startswith("postgres") else "key prefix"
    return f"namespace {names[-1] if names else DEFAULT_NAMESPACE}: its {where}"


def _marker_line(marker: Any) -> str:
    if marker is None:
        return (
            "marker: none (no gateway has opened this store yet, or it lost its data before any gateway "
            "looked again)"
        )
    if str(marker.kind) == "lost":
        return (
            f"marker: lost (a gateway found at {_when(marker.created_at)} that the store had lost its data; "
            "calls with idempotency keys, approvals and long calls are refused until --acknowledge)"
        )
    return f"marker: present ({marker.id[:12]}, {marker.kind} {_when(marker.created_at)})"


@store_group.command("check")
@store_config_option("The config whose `store:` is checked.")
@click.option(
    "--acknowledge",
    is_flag=True,
    help="The store lost its data and you accept it: write a new marker so gateways take such calls again.",
)
@friendly_errors
def check_command(config_path: str, acknowledge: bool) -> None:
    """Report the store's backend, schema version, persistence settings and marker. Exit 0, or 1 when a
    gateway found the store had lost its data (and it was not acknowledged)."""
    import anyio  # here: the command line loads it only for a command that runs

    lines, lost = anyio.run(_check, config_path, acknowledge)
    for line in lines:
        click.echo(line)
    raise SystemExit(EXIT_FINDINGS if lost else EXIT_OK)
