"""No command ends in a Python traceback: each failure is one coded line and a non-zero exit."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from specbridge.cli import app
from specbridge.cli._app import EXIT_CANNOT_START, EXIT_INTERNAL, EXIT_UNREADABLE, EXIT_USAGE
from specbridge.cli._demo import example_spec_path

SPEC = example_spec_path()
KEY_SHA256 = "0" * 64


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def one_coded_line(result: Result, code: str) -> str:
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    # `serve` writes only log lines (JSON), its error too: an `error` record with the code; another
    # command writes one plain line.
    lines = []
    for line in result.stderr.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record["level"] == "error":
                lines.append(f"error [{record['code']}]: {record['message']}")
        elif line.strip():
            lines.append(line)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error [{code}]: "), lines[0]
    return lines[0]


@pytest.fixture
def config_with_clients(tmp_path: Path) -> str:
    """Clients exist, so a non-loopback --host passes the unsafe-bind check and reaches the bind."""
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        f"apis:\n  shop: {{spec: {SPEC}, base_url: 'https://api.example.com'}}\n"
        f"clients:\n  bot: {{key_sha256: '{KEY_SHA256}', apis: [shop]}}\n"
    )
    return str(path)


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        yield taken.getsockname()[1]


def serve_http(*args: str) -> Result:
    return run("serve", SPEC, "--base-url", "https://api.example.com", "--transport", "http", *args)


def test_a_port_in_use_is_one_coded_line(busy_port: int) -> None:
    result = serve_http("--port", str(busy_port))
    assert result.exit_code == EXIT_CANNOT_START
    assert "--port" in one_coded_line(result, "serve-port-in-use")


def test_a_port_out_of_range_is_one_coded_line() -> None:
    result = serve_http("--port", "99999")
    assert result.exit_code == EXIT_CANNOT_START
    assert "0 for any free port" in one_coded_line(result, "serve-address-invalid")


def test_an_unresolvable_host_is_one_coded_line(config_with_clients: str) -> None:
    result = run("serve", "--config", config_with_clients, "--transport", "http", "--host", "nosuch.invalid")
    assert result.exit_code == EXIT_CANNOT_START
    assert "nosuch.invalid" in one_coded_line(result, "serve-address-invalid")


def test_an_address_of_another_machine_is_one_coded_line(config_with_clients: str) -> None:
    # 192.0.2.1 (TEST-NET-1) is nobody's address here: binding it fails, nothing is sent anywhere.
    result = run(
        "serve", "--config", config_with_clients, "--transport", "http", "--host", "192.0.2.1", "--port", "0"
    )
    assert result.exit_code == EXIT_CANNOT_START
    assert "not an address of this machine" in one_coded_line(result, "serve-address-invalid")


def test_a_non_loopback_host_without_clients_is_refused_before_serving() -> None:
    result = serve_http("--host", "0.0.0.0", "--port", "0")
    assert result.exit_code == EXIT_UNREADABLE
    one_coded_line(result, "serve-unsafe-bind")


def test_a_non_loopback_host_with_an_oauth_api_without_audience_is_refused_before_serving(
    tmp_path: Path,
) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(
        f"apis:\n  shop:\n    spec: {SPEC}\n"
        "    oauth: {issuer: https://auth.example.com, jwks_uri: https://auth.example.com/jwks}\n",
        encoding="utf-8",
    )
    result = run("serve", "--config", str(path), "--transport", "http", "--host", "0.0.0.0", "--port", "0")
    assert result.exit_code == EXIT_UNREADABLE
    assert "apis.shop.oauth has no `audience`" in one_coded_line(result, "serve-unsafe-bind")


def test_tools_into_a_missing_folder_is_one_coded_line(tmp_path: Path) -> None:
    target = tmp_path / "absent" / "tools.json"
    result = run("tools", SPEC, "-o", str(target))
    assert result.exit_code == EXIT_CANNOT_START
    assert str(target) in one_coded_line(result, "output-unwritable")
    assert not target.exists()


def test_a_directory_as_the_document_is_document_not_found(tmp_path: Path) -> None:
    for command in ("lint", "tools"):
        result = run(command, str(tmp_path))
        assert result.exit_code == EXIT_UNREADABLE
        assert "is a directory" in one_coded_line(result, "document-not-found")


def test_an_unexpected_exception_is_one_coded_line_without_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("secret-looking text that must not be shown")

    monkeypatch.setattr("specbridge.cli._tools.export", explode)
    monkeypatch.delenv("SPECBRIDGE_DEBUG", raising=False)
    result = run("tools", SPEC)
    assert result.exit_code == EXIT_INTERNAL
    line = one_coded_line(result, "internal-error")
    assert "ZeroDivisionError" in line
    assert "secret-looking" not in result.stderr


def test_the_installed_command_prints_no_traceback_for_an_unexpected_exception(tmp_path: Path) -> None:
    """The real entry point (`specbridge.cli.main`) in a fresh process, with an exception forced
    from inside a command."""
    code = (
        "import specbridge.cli._tools as tools\n"
        "def explode(*a, **k): raise RuntimeError('boom')\n"
        "tools.export = explode\n"
        "import sys; sys.argv = ['specbridge', 'tools', sys.argv[1]]\n"
        "from specbridge.cli import main; main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, SPEC], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == EXIT_INTERNAL
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error [internal-error]: ")


def test_a_bad_command_line_stays_clicks_usage_error() -> None:
    result = run("serve", SPEC, "--transport", "carrier-pigeon")
    assert result.exit_code == EXIT_USAGE
    assert "Traceback" not in result.output


def test_a_known_error_inside_a_task_group_keeps_its_own_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from specbridge._errors import ConfigError

    def refuse(*_: object) -> None:
        raise ConfigError("refused for the test", source="<test>", key="apis")

    # claimed_stdin runs inside serve_stdio's task group, so its error arrives as an ExceptionGroup.
    monkeypatch.setattr("specbridge.gateway._stdio.claimed_stdin", refuse)
    result = CliRunner().invoke(app, ["serve", SPEC, "--base-url", "https://api.example.com"], input="")
    assert result.exit_code == EXIT_UNREADABLE
    assert "refused for the test" in one_coded_line(result, "config-invalid")


def test_a_deadline_that_is_not_a_positive_number_is_a_usage_error() -> None:
    for value in ("0", "-1", "nan", "inf"):
        result = run("serve", SPEC, "--deadline", value)
        assert result.exit_code == EXIT_USAGE
        assert "must be a number of seconds above 0" in result.output


def test_a_reader_that_goes_away_ends_the_output_quietly(tmp_path: Path) -> None:
    """`specbridge tools BIG | head -c 1`: no BrokenPipeError traceback (click's own handling, kept by
    the last guard). The output is far larger than a pipe's buffer, so the write fails once the reader
    has gone."""
    paths = {
        f"/things{index}": {
            "get": {"operationId": f"listThings{index}", "summary": "List things. " * 40, "responses": {}}
        }
        for index in range(400)
    }
    spec = tmp_path / "big.json"
    spec.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}))
    code = "import sys; sys.argv = ['specbridge', 'tools', sys.argv[1]]\nfrom specbridge.cli import main; main()\n"
    with subprocess.Popen(
        [sys.executable, "-c", code, str(spec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(1)
        process.stdout.close()  # the reader leaves after one byte
        errors = process.stderr.read().decode()
        process.wait(timeout=60)
    assert "Traceback" not in errors
    assert "BrokenPipeError" not in errors


def test_a_binary_config_is_config_invalid_in_our_words(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_bytes(b"\x00\xff\xfe\x89PNG")
    result = run("lint", SPEC, "--config", str(path))
    assert result.exit_code == EXIT_UNREADABLE
    line = one_coded_line(result, "config-invalid")
    assert "is not UTF-8 text" in line and "codec" not in line
