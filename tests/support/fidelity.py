"""Request fidelity, end to end: does the request that reaches the API satisfy the original document?

`specbridge serve` runs over Streamable HTTP with one API per corpus document (OpenAPI 3.x), each
pointed at a recording upstream on loopback (`egress.allow` names it) with a credential where the
document's first security scheme puts it. The official MCP SDK client lists every tool and calls
each one twice: with the required arguments only, then with every argument down to depth 5
(arguments generated from the tool's own input schema). The request the upstream records is
validated by openapi-core against the **original** document; the leniencies given to the validator
are listed in tests/support/fidelity_validator.py, listed with their reasons in docs/benchmarks.md.

Used by tests/call/test_call_fidelity.py (a sample) and bench/fidelity.py (everything).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import yaml

from specbridge.files import FILE_REF
from tests.support.fidelity_validator import (
    ValidatorRequest,
    detail_of,
    judge,
    kind_of,
    lenient,
    parameters_without_read_only,
    required_without_read_only,
    unverifiable_cause,
    without_discriminators,
    writable_where_redeclared,
)
from tests.support.fidelity_values import Generator
from tests.support.upstream import RecordedRequest, Upstream, json_response

# Beside the checkout, or where SPECBRIDGE_CORPUS says (a git worktree sits one folder deeper).
CORPUS = Path(
    os.environ.get("SPECBRIDGE_CORPUS") or Path(__file__).resolve().parents[3] / "shared" / "corpus"
)
ROOT = Path(__file__).resolve().parents[2]
PASSES = ("required", "all")
SECRET = "Zq7credentialXk9"
OPERATION_HEADER = "x-specbridge-operation"


@dataclass
class Fidelity:
    operations: int = 0
    accepted: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    # Requests sent but not judged: no request could satisfy the document, or openapi-core cannot read it
    # (`unverifiable_cause`); counted, listed, and left out of `share` (`raw_share` keeps them as failures).
    unverifiable: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def share(self) -> float:
        judged = self.operations - sum(self.unverifiable.values())
        return self.accepted / judged if judged else 0.0

    @property
    def raw_share(self) -> float:
        return self.accepted / self.operations if self.operations else 0.0

    def fail(self, kind: str, where: str) -> None:
        self.failures[kind] += 1
        self.examples.setdefault(kind, []).append(where)

    def not_judged(self, kind: str, where: str) -> None:
        self.unverifiable[kind] += 1
        self.examples.setdefault(kind, []).append(where)


def documents(max_bytes: int | None = None) -> list[Path]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        CORPUS / row["file"]
        for row in rows
        if row["format_version"].startswith("openapi 3")
        and (max_bytes is None or int(row["size_bytes"]) <= max_bytes)
    ]


# -- the document side --------------------------------------------------------------------------------


def api_name(path: Path) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")[:48]


def scheme_for(data: dict[str, Any]) -> str:
    """The security scheme the API's one credential stands for ("" for none)."""
    schemes = ((data.get("components") or {}).get("securitySchemes")) or {}
    requirements = data.get("security") or []
    names = [name for item in requirements if isinstance(item, dict) for name in item]
    if not names:
        for item in (data.get("paths") or {}).values():
            for operation in item.values() if isinstance(item, dict) else ():
                if isinstance(operation, dict) and isinstance(operation.get("security"), list):
                    names += [n for entry in operation["security"] if isinstance(entry, dict) for n in entry]
    return next((name for name in names if isinstance(schemes.get(name), dict)), "")


def auth_for(data: dict[str, Any]) -> dict[str, str]:
    """The credential where the document's first security requirement puts it."""
    chosen = scheme_for(data)
    if not chosen:
        return {"type": "none"}
    scheme = data["components"]["securitySchemes"][chosen]
    if scheme.get("type") == "apiKey" and scheme.get("in") in ("header", "query", "cookie"):
        return {
            "type": str(scheme["in"]),
            "name": str(scheme.get("name", "")),
            "secret": "env:FIDELITY_SECRET",
        }
    if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        return {"type": "basic", "secret": "env:FIDELITY_BASIC"}
    return {"type": "bearer", "secret": "env:FIDELITY_SECRET"}


@dataclass
class Api:
    name: str
    path: Path
    validator: Any  # openapi_core.OpenAPI, or None when it cannot read the document
    problem: str = ""
    scheme: str = ""  # the security scheme the API's credential stands for


def document_data(path: Path) -> dict[str, Any]:
    """The document as data, read by YAML 1.2 rules (PyYAML reads 1.1 and trips on some documents)."""
    from specbridge.document import load_document

    data = load_document(path).data
    assert isinstance(data, dict)
    return data


def _validator(data: dict[str, Any], base: str) -> Any:
    from openapi_core import OpenAPI
    from openapi_core.configurations import Config

    paths = {
        key: {
            method: {k: v for k, v in operation.items() if k != "servers"}
            if isinstance(operation, dict)
            else operation
            for method, operation in item.items()
            if method != "servers"
        }
        if isinstance(item, dict)
        else item
        for key, item in (data.get("paths") or {}).items()
    }
    document = parameters_without_read_only({**data, "servers": [{"url": base}], "paths": paths})
    document = required_without_read_only(writable_where_redeclared(without_discriminators(document)))
    return OpenAPI.from_dict(document, config=Config(spec_validator_cls=None))


def write_config(directory: Path, apis: list[Path], upstream: Upstream) -> tuple[Path, list[Api]]:
    config: dict[str, Any] = {"apis": {}}
    loaded: list[Api] = []
    for path in apis:
        name = api_name(path)
        base = f"{upstream.url}/{name}"
        try:
            data = document_data(path)
            validator = _validator(data, base)
        except Exception as error:  # a document openapi-core cannot read is not our fidelity
            loaded.append(Api(name, path, None, f"{type(error).__name__}"))
            continue
        config["apis"][name] = {
            "spec": str(path),
            "base_url": base,
            "auth": auth_for(data),
            "egress": {"allow": [upstream.address]},
            "search": "off",  # every operation as a tool of its own
            "timeout": 60,
        }
        loaded.append(Api(name, path, validator, scheme=scheme_for(data)))
    target = directory / "specbridge.yaml"
    target.write_text(yaml.safe_dump(config), encoding="utf-8")
    return target, loaded


@contextlib.asynccontextmanager
async def _serving(config: Path, command: list[str] | None = None) -> AsyncIterator[str]:
    """`specbridge serve` over Streamable HTTP in its own process; yields its base URL once it listens."""
    from tests.support.processes import gateway_process

    env = {"FIDELITY_SECRET": SECRET, "FIDELITY_BASIC": f"user:{SECRET}"}
    async with gateway_process(config, command=command, env=env) as running:
        yield running.base


@contextlib.asynccontextmanager
async def _session(url: str) -> AsyncIterator[Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client() as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        yield client


async def _tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            return tools


def _text(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)[:300]


class Recorder:
    """The upstream's fallback: answers `{}` and files each request under (API, tool name)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], list[RecordedRequest]] = {}

    def __call__(self, request: RecordedRequest) -> Any:
        api = request.target.lstrip("/").split("/", 1)[0].split("?", 1)[0]
        self.seen.setdefault((api, request.headers.get(OPERATION_HEADER, "")), []).append(request)
        return json_response({})

    def take(self, api: str, tool: str) -> list[RecordedRequest]:
        """What arrived for this tool (a server that names no operation: whatever came for the API)."""
        return self.seen.pop((api, tool), []) or self.seen.pop((api, ""), [])


async def measure_api(
    mcp_url: str,
    api: Api,
    upstream: Upstream,
    recorder: Recorder,
    stats: dict[str, Fidelity],
    sample: int | None,
) -> None:
    """Every tool (or about `sample` of them) of the MCP server at `mcp_url`, both passes."""
    async with _session(mcp_url) as client:
        try:
            tools = await _tools(client)
        except Exception as error:  # the client cannot read the server's tool list: nothing to call
            for mode in PASSES:
                stats[mode].skipped[f"tool list unreadable: {api.path.name} ({str(error)[:80]})"] += 1
            return
        if sample is not None:
            tools = tools[:: max(1, len(tools) // sample)][:sample]
        for tool in tools:
            for mode in PASSES:
                pass_stats = stats[mode]
                where = f"{api.path.name} {tool.name}"
                arguments = Generator(tool.input_schema, mode).arguments()
                if _gateway_attachments(tool.input_schema):
                    # The gateway's own stand-in for the one file field (docs/files.md): not both at once.
                    arguments.pop("attachments", None)
                if "idempotency_key" in arguments:
                    # An agent uses a new key per action; one generated value in both passes would be
                    # the same key with other arguments (idempotency-key-reused), nothing sent.
                    arguments["idempotency_key"] = f"fidelity-{mode}-{tool.name}"
                pass_stats.operations += 1
                result: Any = None
                problem = ""
                try:
                    with anyio.fail_after(120):
                        result = await client.call_tool(tool.name, arguments)
                except Exception as error:  # the client refused the answer; the request still counts
                    problem = f"{type(error).__name__}: {str(error)[:200]}"
                recorded = recorder.take(api.name, tool.name)
                if not recorded and problem:
                    pass_stats.fail(
                        f"not sent: client error {problem.split(':', 1)[0]}", f"{where}: {problem}"
                    )
                    continue
                if not recorded:
                    text = _text(result)
                    code = text.split("]", 1)[0].lstrip("[") if text.startswith("[") else "not sent"
                    pass_stats.fail(f"not sent: [{code}]", f"{where}: {text}")
                    continue
                try:
                    judge(api.validator, ValidatorRequest(upstream.url + f"/{api.name}", recorded[0]))
                except Exception as error:
                    cause = unverifiable_cause(error, api.scheme, recorded[0])
                    if cause:
                        pass_stats.not_judged(cause, f"{where}: {detail_of(error)}")
                    else:
                        pass_stats.fail(kind_of(error), f"{where}: {detail_of(error)}")
                else:
                    pass_stats.accepted += 1


async def measure(
    paths: list[Path],
    *,
    sample: int | None = None,
    command: list[str] | None = None,
    concurrency: int = 2,
    progress: Callable[[Api], None] = lambda api: None,
) -> dict[str, Fidelity]:
    """Both passes over `paths` (every tool, or about `sample` per document)."""
    stats = {mode: Fidelity() for mode in PASSES}
    started = time.perf_counter()
    recorder = Recorder()
    with Upstream(fallback=recorder) as upstream, tempfile.TemporaryDirectory() as directory:
        config, apis = write_config(Path(directory), paths, upstream)
        for api in apis:
            if api.validator is None:
                for mode in PASSES:
                    stats[mode].skipped[f"document openapi-core cannot read ({api.problem})"] += 1
        usable = [api for api in apis if api.validator is not None]
        async with _serving(config, command) as url:
            limit = anyio.Semaphore(concurrency)

            async def one(api: Api) -> None:
                async with limit:
                    await measure_api(f"{url}/{api.name}/mcp", api, upstream, recorder, stats, sample)
                    progress(api)

            with lenient():
                async with anyio.create_task_group() as tasks:
                    for api in usable:
                        tasks.start_soon(one, api)
    for value in stats.values():
        value.seconds = time.perf_counter() - started
    return stats


def _gateway_attachments(schema: dict[str, Any]) -> bool:
    """Whether `attachments` in a served schema is the gateway's one-file form, not the document's."""
    found = schema.get("properties", {}).get("attachments")
    return isinstance(found, dict) and found.get("items") == FILE_REF
