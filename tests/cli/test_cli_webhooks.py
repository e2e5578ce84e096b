"""`specbridge webhooks verify`: a saved delivery checked against the secret, the way a receiver checks it;
signatures made by the `standardwebhooks` package (an independent signer) and by our own sender."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from standardwebhooks.webhooks import Webhook

from specbridge.cli import app
from specbridge.webhooks import secret_key, signed_headers

SECRET = "whsec_" + base64.b64encode(b"a test secret of thirty-two byte").decode()
OTHER = "whsec_" + base64.b64encode(b"another secret, thirty-two bytes").decode()
BODY = '{"type":"approval.requested","data":{"id":"abc"}}'


@pytest.fixture
def secrets_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_SECRET", SECRET)
    monkeypatch.setenv("OLD_SECRET", OTHER)


def saved(tmp_path: Path, headers: dict[str, str], body: str = BODY) -> Path:
    path = tmp_path / "delivery.json"
    path.write_text(json.dumps({"headers": headers, "body": body}), encoding="utf-8")
    return path


def independent_headers(msg_id: str, stamp: int, body: str = BODY) -> dict[str, str]:
    sig = Webhook(SECRET).sign(msg_id, datetime.fromtimestamp(stamp, tz=UTC), body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(stamp), "webhook-signature": sig}


def verify(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["webhooks", "verify", *args])
    return result.exit_code, result.output


def test_a_delivery_signed_by_the_standard_library_is_valid(tmp_path: Path, secrets_env: None) -> None:
    path = saved(tmp_path, independent_headers("msg_1", int(time.time())))
    code, output = verify(str(path), "--secret", "env:HOOK_SECRET")
    assert code == 0, output
    assert "valid" in output and "msg_1" in output


def test_a_delivery_our_sender_signed_during_a_rotation_is_valid_with_either_secret(
    tmp_path: Path, secrets_env: None
) -> None:
    headers = signed_headers("msg_2", 1_700_000_000, BODY.encode(), [secret_key(SECRET), secret_key(OTHER)])
    path = saved(tmp_path, headers)
    assert verify(str(path), "--secret", "env:OLD_SECRET")[0] == 0
    assert verify(str(path), "--secret", "env:HOOK_SECRET")[0] == 0


def test_a_changed_body_or_another_secret_is_refused_with_a_code(tmp_path: Path, secrets_env: None) -> None:
    headers = independent_headers("msg_3", int(time.time()))
    tampered = saved(tmp_path, headers, BODY.replace("abc", "abd"))
    code, output = verify(str(tampered), "--secret", "env:HOOK_SECRET")
    assert code == 1 and "[webhook-signature-invalid]" in output
    path = saved(tmp_path, headers)
    assert verify(str(path), "--secret", "env:OLD_SECRET")[0] == 1


def test_max_age_refuses_an_old_delivery_as_a_live_receiver_would(tmp_path: Path, secrets_env: None) -> None:
    path = saved(tmp_path, independent_headers("msg_4", int(time.time()) - 3600))
    assert verify(str(path), "--secret", "env:HOOK_SECRET")[0] == 0
    code, output = verify(str(path), "--secret", "env:HOOK_SECRET", "--max-age", "300")
    assert code == 1 and "replay" in output


def test_a_raw_http_request_saved_as_it_came_is_read_too(tmp_path: Path, secrets_env: None) -> None:
    headers = independent_headers("msg_5", int(time.time()))
    lines = ["POST /hooks HTTP/1.1", "Content-Type: application/json"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    path = tmp_path / "delivery.http"
    path.write_bytes(("\r\n".join(lines) + "\r\n\r\n" + BODY).encode())
    assert verify(str(path), "--secret", "env:HOOK_SECRET")[0] == 0


def test_a_secret_written_on_the_command_line_or_a_missing_file_is_a_coded_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    code, output = verify(str(tmp_path / "nothing.json"), "--secret", SECRET)
    assert code == 1 and "env:NAME or file:PATH" in output and "Traceback" not in output
    code, output = verify(str(tmp_path / "nothing.json"), "--secret", "env:HOOK_SECRET_UNSET")
    assert code != 0 and "Traceback" not in output
