"""The same fidelity measurement for FastMCP's `FastMCP.from_openapi` (bench/.venv-peer), one server
process per document, side by side with specbridge (bench/fidelity.py --peer)."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import anyio

from tests.support.fidelity import (
    PASSES,
    ROOT,
    SECRET,
    Api,
    Fidelity,
    Recorder,
    auth_for,
    document_data,
    measure_api,
    write_config,
)
from tests.support.fidelity_validator import lenient
from tests.support.upstream import Upstream

PEER_PYTHON = ROOT / "bench" / ".venv-peer" / "bin" / "python"


def _client_options(api: Api) -> dict[str, dict[str, str]]:
    """The credential as FastMCP's httpx client would carry it: headers, params or cookies."""
    auth = auth_for(document_data(api.path))
    kind = auth.get("type")
    if kind == "bearer":
        return {"headers": {"Authorization": f"Bearer {SECRET}"}}
    if kind == "basic":
        return {"headers": {"Authorization": "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()}}
    if kind == "header":
        return {"headers": {auth["name"]: SECRET}}
    if kind == "query":
        return {"params": {auth["name"]: SECRET}}
    if kind == "cookie":
        return {"cookies": {auth["name"]: SECRET}}
    return {}


async def _start(api: Api, base: str, directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    """FastMCP serving the document on a socket this process binds and hands over already listening, so
    no port is polled: the child says `ready` once `from_openapi` took the document (or ends, refusing)."""
    spec = directory / f"{api.name}.json"
    spec.write_text(json.dumps(document_data(api.path), default=str), encoding="utf-8")
    listening = socket.create_server(("127.0.0.1", 0))
    port = int(listening.getsockname()[1])
    code = textwrap.dedent(f"""\
        import json, socket, httpx2 as httpx
        from fastmcp import FastMCP
        spec = json.load(open({str(spec)!r}))
        client = httpx.AsyncClient(base_url={base!r}, timeout=60, **json.loads({json.dumps(json.dumps(_client_options(api)))}))
        mcp = FastMCP.from_openapi(openapi_spec=spec, client=client, name={api.name!r})
        print("ready", flush=True)
        sockets = [socket.socket(fileno={listening.fileno()})]
        mcp.run(transport="http", host="127.0.0.1", port={port}, sockets=sockets, show_banner=False, log_level="ERROR")
        """)
    with listening:
        process = subprocess.Popen(
            [str(PEER_PYTHON), "-c", code],
            stderr=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            pass_fds=[listening.fileno()],
        )
    assert process.stdout is not None
    try:
        with anyio.fail_after(300):
            said = await anyio.to_thread.run_sync(process.stdout.readline, abandon_on_cancel=True)
    except TimeoutError:
        process.kill()
        process.wait(20)
        raise TimeoutError("FastMCP did not take the document within 300 s") from None
    if said.strip() != b"ready":
        process.wait(20)
        raise RuntimeError(f"FastMCP exited with {process.returncode}")
    return process, port


async def measure_peer(
    paths: list[Path], *, sample: int | None = None, progress: Callable[[Api], None] = lambda api: None
) -> dict[str, Fidelity]:
    stats = {mode: Fidelity() for mode in PASSES}
    started = time.perf_counter()
    recorder = Recorder()
    with Upstream(fallback=recorder) as upstream, tempfile.TemporaryDirectory() as directory:
        _, apis = write_config(Path(directory), paths, upstream)
        for api in apis:
            if api.validator is None:
                for mode in PASSES:
                    stats[mode].skipped[f"document openapi-core cannot read ({api.problem})"] += 1
                continue
            try:
                process, port = await _start(api, f"{upstream.url}/{api.name}", Path(directory))
            except (RuntimeError, TimeoutError) as error:
                for mode in PASSES:
                    stats[mode].skipped[f"document the server refuses ({api.path.name}: {error})"] += 1
                continue
            try:
                with lenient():
                    await measure_api(f"http://127.0.0.1:{port}/mcp", api, upstream, recorder, stats, sample)
            finally:
                process.terminate()
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(20)
                if process.stdout is not None:
                    process.stdout.close()
            progress(api)
    for value in stats.values():
        value.seconds = time.perf_counter() - started
    return stats
