"""`call.readiness`: what will fail for every call of an API, known at start, named without revealing a
secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge.call import readiness
from specbridge.config import ApiConfig, AuthConfig, Secret


def api(**auth: object) -> ApiConfig:
    return ApiConfig(name="orders", spec="orders.yaml", auth=AuthConfig(type="bearer", **auth))  # type: ignore[arg-type]


def test_a_set_secret_and_a_base_url_are_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDERS_TOKEN", "t0ken-value")
    assert readiness(api(secret=Secret("env:ORDERS_TOKEN")), "https://api.example.com") == []


@pytest.mark.parametrize(("value", "why"), [(None, "is not set"), ("", "is empty")])
def test_an_env_secret_unset_or_empty_is_named_by_its_variable(
    monkeypatch: pytest.MonkeyPatch, value: str | None, why: str
) -> None:
    if value is None:
        monkeypatch.delenv("ORDERS_TOKEN", raising=False)
    else:
        monkeypatch.setenv("ORDERS_TOKEN", value)
    [problem] = readiness(api(secret=Secret("env:ORDERS_TOKEN")), "https://api.example.com")
    assert (problem.api, problem.code) == ("orders", "secret-unavailable")
    assert problem.message.startswith(f"apis.orders.auth.secret: the environment variable ORDERS_TOKEN {why}")


def test_a_file_secret_that_cannot_be_read_and_per_client_secrets_are_checked(tmp_path: Path) -> None:
    readable = tmp_path / "token"
    readable.write_text("s3cret")
    secrets = {"shop-1": Secret(f"file:{readable}"), "shop-2": Secret(f"file:{tmp_path / 'absent'}")}
    [problem] = readiness(api(secrets=secrets), "https://api.example.com")
    assert problem.message.startswith("apis.orders.auth.secrets.shop-2: the secret file")
    assert "s3cret" not in problem.message


def test_no_base_url_names_the_documents_servers_and_the_way_out() -> None:
    [problem] = readiness(api(), None, ("http://localhost:8080",))
    assert problem.code == "base-url-missing"
    assert "http://localhost:8080" in problem.message and "egress.allow" in problem.message


def test_what_an_oauth2_grant_reads_is_checked_the_store_key_by_its_own_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from specbridge.config import GrantConfig

    monkeypatch.setenv("CRM_SECRET", "client-s3cret")
    monkeypatch.delenv("CRM_REFRESH", raising=False)
    monkeypatch.delenv("STORE_KEY", raising=False)
    grant = GrantConfig(
        "refresh_token",
        "https://auth.example.com/token",
        "gw",
        client_secret=Secret("env:CRM_SECRET"),
        refresh_token=Secret("env:CRM_REFRESH"),
        store_key=Secret("env:STORE_KEY"),
    )
    auth = AuthConfig(type="oauth2_refresh_token", grant=grant)
    problems = readiness(ApiConfig(name="orders", spec="orders.yaml", auth=auth), "https://api.example.com")
    assert [problem.message.partition(":")[0] for problem in problems] == [
        "apis.orders.auth.refresh_token",
        "store_key",
    ]
    assert all("client-s3cret" not in problem.message for problem in problems)


@pytest.mark.parametrize("kind", ["env", "file"])
def test_a_store_key_shorter_than_32_characters_is_named_without_its_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    from specbridge.config import GrantConfig

    short = "only-31-characters-long-0123456"
    assert len(short) == 31
    monkeypatch.setenv("STORE_KEY", short)
    (tmp_path / "key").write_text(short + "\n")
    reference = "env:STORE_KEY" if kind == "env" else f"file:{tmp_path / 'key'}"
    grant = GrantConfig(
        "client_credentials", "https://auth.example.com/token", "gw", store_key=Secret(reference)
    )
    auth = AuthConfig(type="oauth2_client_credentials", grant=grant)
    [problem] = readiness(ApiConfig(name="crm", spec="crm.yaml", auth=auth), "https://api.example.com")
    assert problem.code == "secret-unavailable"
    assert problem.message.startswith("store_key: the ")
    assert "fewer than 32 characters" in problem.message and short not in problem.message
    monkeypatch.setenv("STORE_KEY", short + "x")
    (tmp_path / "key").write_text(short + "x\n")
    assert readiness(ApiConfig(name="crm", spec="crm.yaml", auth=auth), "https://api.example.com") == []
