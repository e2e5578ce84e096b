"""What each command must have done, as the docs say it: its exit status, and the shape of what it
printed or wrote. One check per command; a command without one of its own must end with exit status 0
(`check_exit`), so a command documented tomorrow is run too. A long-running one (a server) needs a
check of its own that starts and stops it, as `check_serve` does."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import yaml

from . import _run, _serving
from ._run import Ran

Check = Callable[[Ran], list[str]]
PORTABLE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
RANK = {"info": 0, "note": 0, "warning": 1, "error": 2}


def _exit(ran: Ran, expected: int) -> list[str]:
    if ran.exit_code == expected:
        return []
    said = (ran.stderr or ran.stdout).strip().splitlines()
    return [f"exit status {ran.exit_code}, expected {expected}: {said[-1] if said else '(nothing printed)'}"]


def _written(ran: Ran, flag: str) -> tuple[str | None, list[str]]:
    """What the command wrote: the file its `flag` (`-o`) names, else its stdout."""
    target = ran.option(flag)
    if target in (None, "-"):
        return ran.stdout, []
    path = ran.workspace.folder / target
    if ran.stdout.strip():
        return None, [f"with {flag} {target} it also printed on stdout"]
    if not path.is_file():
        return None, [f"{flag} {target} was not written"]
    return path.read_text(encoding="utf-8"), []


def _json(text: str | None) -> tuple[Any, list[str]]:
    try:
        return json.loads(text or ""), []
    except ValueError:
        return None, [f"not JSON: {(text or '')[:120]!r}"]


def check_lint(ran: Ran) -> list[str]:
    if ran.option("--generate-baseline"):
        return _exit(ran, 0) + _baseline(ran.workspace.folder / ran.option("--generate-baseline"))
    # The same lint as JSON says what is found, and so which exit status lint.md's table promises.
    source = [*ran.argument(), *_given(ran, "--config", "--api")]
    _, stdout, _ = _run.invoke(["lint", *source, "--format", "json"], ran.workspace)
    reports, problems = _json(stdout)
    if problems:
        return problems
    level = ran.option("--fail-on") or ("warning" if ran.option("--strict") else "error")
    failing = [
        finding
        for report in (reports if isinstance(reports, list) else [reports])
        for finding in report["findings"]
        if level != "none" and not finding.get("advice") and RANK[finding["severity"]] >= RANK[level]
    ]
    problems = _exit(ran, 1 if failing else 0)
    text, more = _written(ran, "-o")
    return problems + more + (_lint_shape(ran, text) if text is not None else [])


def _given(ran: Ran, *flags: str) -> list[str]:
    return [word for flag in flags if ran.option(flag) for word in (flag, str(ran.option(flag)))]


def _baseline(path: Path) -> list[str]:
    if not path.is_file():
        return [f"{path.name} was not written"]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    ignore = (data or {}).get("lint", {}).get("ignore")
    if not ignore or not all(isinstance(entry, dict) and "rule" in entry for entry in ignore):
        return [f"{path.name} holds no lint.ignore entries: {str(data)[:200]}"]
    return []


def _lint_shape(ran: Ran, text: str) -> list[str]:
    fmt = ran.option("--format")
    specs = ran.argument()
    if fmt == "text":
        missing = [spec for spec in specs if f"specbridge lint {spec} (" not in text]
        last = text.strip().splitlines()[-1] if text.strip() else ""
        total = re.search(r"\d+ tools?, \d+ findings?", last)
        return [f"no `specbridge lint {spec} (…)` header" for spec in missing] + (
            [] if total else [f"the last line is not the summary: {last!r}"]
        )
    if fmt == "json":
        data, problems = _json(text)
        reports = data if isinstance(data, list) else [data]
        keys = {"source", "tools", "summary", "findings"}
        return problems + [f"a report without {keys}" for report in reports if not keys <= set(report or {})]
    if fmt == "sarif":
        data, problems = _json(text)
        if problems:
            return problems
        runs = data.get("runs", [])
        named = {json.dumps(result.get("locations")) for run in runs for result in run.get("results", [])}
        unnamed = [spec for spec in specs if not any(Path(spec).name in where for where in named)]
        return ([] if data.get("version") == "2.1.0" and len(runs) == 1 else ["not one SARIF 2.1.0 run"]) + [
            f"no result names {spec}" for spec in unnamed
        ]
    if fmt == "github":
        lines = [line for line in text.splitlines() if line.strip()]
        return [f"not a workflow command: {line!r}" for line in lines if not line.startswith("::")]
    if fmt == "markdown":
        return [] if "\n|" in text else ["no table"]
    return [f"no check for lint --format {fmt}"]


def check_tools(ran: Ran) -> list[str]:
    text, problems = _written(ran, "-o")
    data, more = _json(text)
    problems = _exit(ran, 0) + problems + more
    if data is None:
        return problems
    fmt = ran.option("--format")
    if fmt == "mcp":
        tools = data.get("tools") if isinstance(data, dict) else None
        wanted = {"name", "description", "inputSchema", "annotations"}
        return problems + (
            ["not a tools/list result"]
            if not tools
            else [f"a tool without {wanted}" for t in tools if not wanted <= set(t)]
        )
    if not isinstance(data, list) or not data:
        return [*problems, f"not a list of tools: {str(data)[:100]}"]
    if fmt == "anthropic":
        tools = data
        if ran.option("--defer-loading"):
            search = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
            problems += [] if data[0] == search else [f"the first tool is not {search}"]
            tools = data[1:]
            problems += [f"{t['name']} is not deferred" for t in tools if t.get("defer_loading") is not True]
        names = [tool.get("name", "") for tool in tools]
        problems += [
            "a tool without name, description, input_schema"
            for t in tools
            if not {"name", "description", "input_schema"} <= set(t)
        ]
    else:
        functions = [tool.get("function", {}) for tool in data if tool.get("type") == "function"]
        names = [function.get("name", "") for function in functions]
        problems += [] if len(functions) == len(data) else ["not every tool is a function tool"]
        if ran.option("--strict") and not any(function.get("strict") for function in functions):
            problems.append("--strict made no tool strict")
    return problems + [f"{name!r} is not a portable name" for name in names if not PORTABLE.match(name)]


def check_call(ran: Ran) -> list[str]:
    problems = _exit(ran, 0)
    if ran.option("--format") == "json":
        data, more = _json(ran.stdout)
        return (
            problems + more + ([] if isinstance(data, dict) and "content" in data else ["not an MCP result"])
        )
    return problems + ([] if ran.stdout.strip() else ["printed no answer"])


def check_serve(ran: Ran) -> list[str]:
    argv = [*_run.python_specbridge(), *ran.args]
    if ran.option("--transport") == "stdio":
        served = anyio.run(_serving.over_stdio, argv, ran.workspace)
        ran.seen["log"] = served.log
        expected = _tool_names(
            ran, *_given(ran, "--config", "--api"), *([ran.argument()] if ran.argument() else [])
        )
        # the gateway's own `get_call_result` (long calls, approvals sent on answer) is not a document tool
        listed = [name for name in served.tools if name != "get_call_result"]
        if listed != expected:
            return [f"tools/list gave {served.tools}, `specbridge tools` gives {expected}"]
        return []
    served = anyio.run(_serving.over_http, argv, ran.workspace)
    ran.seen["log"] = served.log
    if not served.urls:
        return [f"it did not serve (exit status {served.exit_code})"]
    problems = []
    apis = sorted(dict(served.health or {}).get("apis", {}))
    if dict(served.health or {}).get("status") != "ok":
        problems.append(f"/healthz answered {served.health}")
    paths = sorted(url.split("/", 3)[3] for url in served.urls)
    wanted = ["mcp"] if apis == ["api"] else sorted(f"{api}/mcp" for api in apis)
    if paths != wanted:
        problems.append(f"served at {paths}, expected {wanted}")
    if served.exit_code != 130:  # docs/errors.md: "130: stopped with Ctrl-C"
        problems.append(f"Ctrl-C ended it with exit status {served.exit_code}, expected 130")
    return problems


def _tool_names(ran: Ran, *source: str) -> list[str]:
    code, stdout, stderr = _run.invoke(["tools", *source], ran.workspace)
    return [tool["name"] for tool in json.loads(stdout)["tools"]] if code == 0 else [f"({stderr.strip()})"]


def check_install(ran: Ran) -> list[str]:
    problems = _exit(ran, 0)
    client = ran.argument()
    if ran.option("--print"):
        data, more = _json(ran.stdout)
        written = data
        problems += more
    else:
        file = _install_file(ran, client)
        if not file.is_file():
            return [*problems, f"{file} was not written"]
        written = json.loads(file.read_text(encoding="utf-8"))
    servers = (written or {}).get("servers" if client == "vscode" else "mcpServers") or {}
    if len(servers) != 1:
        return [*problems, f"not one server in {written}"]
    [(name, entry)] = servers.items()
    if ran.option("--transport") == "http":
        header = entry.get("headers", {}).get("Authorization", "")
        return problems + (
            []
            if entry.get("url") and "${" in header
            else [f"not an HTTP entry with a key reference: {entry}"]
        )
    served = anyio.run(_serving.over_stdio, [entry["command"], *entry["args"]], ran.workspace)
    ran.seen["log"] = served.log
    return problems + (
        [] if served.tools else [f"the entry {name} does not start a gateway: {entry['args']}"]
    )


def _install_file(ran: Ran, client: str) -> Path:
    if ran.option("--file"):
        return ran.workspace.folder / ran.option("--file")
    home = ran.workspace.folder / "home"
    return {
        "claude-code": ran.workspace.folder / ".mcp.json",
        "vscode": ran.workspace.folder / ".vscode" / "mcp.json",
        "cursor": home / ".cursor" / "mcp.json",
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
    }[client]


def check_keys_new(ran: Ran) -> list[str]:
    key = re.search(r"^(?:admin )?key: (\S+)$", ran.stdout, re.M)
    digest = re.search(r'key_sha256: "([0-9a-f]{64})"', ran.stdout)
    if not key or not digest:
        return [*_exit(ran, 0), "no key and key_sha256 printed"]
    matches = hashlib.sha256(key.group(1).encode()).hexdigest() == digest.group(1)
    return _exit(ran, 0) + ([] if matches else ["key_sha256 is not the key's SHA-256"])


def check_approvals(ran: Ran) -> list[str]:
    problems = _exit(ran, 0)
    action = ran.path[-1]
    if action == "list":
        if ran.option("--format") == "json":
            return problems + _json(ran.stdout)[1]
        pending = [id_ for id_ in ran.workspace.approvals if id_ not in ran.workspace.answered]
        return problems + [f"pending approval {id_} not listed" for id_ in pending if id_ not in ran.stdout]
    approval = ran.argument()
    if action == "show":
        return problems + ([] if approval in ran.stdout else [f"{approval} not shown"])
    status = ran.workspace.status(approval)
    ran.workspace.answered.add(approval)
    if action == "reject":
        return problems + ([] if status == "rejected" else [f"the approval is {status}, expected rejected"])
    # approved, and maybe already sent (executing, done, …): anything but still open or refused
    refused = ("pending", "rejected", "expired", "not found")
    return problems + ([f"the approval is {status} after approve"] if status in refused else [])


RUNS_ITSELF = frozenset({("serve",)})  # checks that start the command as a process of its own
CHECKS: dict[tuple[str, ...], Check] = {
    ("lint",): check_lint,
    ("tools",): check_tools,
    ("call",): check_call,
    ("serve",): check_serve,
    ("install",): check_install,
    ("keys", "new"): check_keys_new,
    ("approvals", "list"): check_approvals,
    ("approvals", "show"): check_approvals,
    ("approvals", "approve"): check_approvals,
    ("approvals", "reject"): check_approvals,
}


def check_exit(ran: Ran) -> list[str]:
    """A command without a check of its own: it ends with exit status 0 (and prints what the docs
    show, if they show anything)."""
    return _exit(ran, 0)


def documented_output(ran: Ran) -> list[str]:
    """The lines a block shows the command printing (after a `$` prompt) appear in its output, in
    order; `…` stands for anything, a `  # comment` after a line is the docs' own."""
    output = ran.stdout.splitlines()
    position = 0
    problems = []
    for line in ran.command.output:
        shown = re.split(r"\s{2,}# ", line)[0].rstrip()
        if not shown.strip():
            continue
        pattern = re.compile("^" + ".*".join(map(re.escape, shown.split("…"))) + "$")
        found = next((index for index in range(position, len(output)) if pattern.match(output[index])), None)
        if found is None:
            problems.append(f"the docs show {shown!r}, which it does not print")
        else:
            position = found + 1
    return problems
