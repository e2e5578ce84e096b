"""specbridge.yaml: errors name the file, the key and what is valid; overrides reach the conversion."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode, load_config
from specbridge.config import Secret, config_from_data
from specbridge.tools import ConvertOptions, ToolOverride


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def failure(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    return caught.value


def test_a_valid_config_reads_with_specs_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            "apis:\n  orders:\n    spec: ./orders.yaml\n    auth: {type: bearer, secret: env:ORDERS_TOKEN}\n"
            "    include_deprecated: true\n    tools:\n      refundOrder: {requires_approval: true}\n",
        )
    )
    api = config.apis["orders"]
    assert api.spec == str((tmp_path / "orders.yaml").resolve())
    assert api.auth.type == "bearer"
    assert api.auth.secret == Secret("env:ORDERS_TOKEN")
    assert api.tools["refundOrder"].requires_approval is True


def test_an_unknown_key_is_rejected_naming_the_file_the_key_and_the_valid_keys(tmp_path: Path) -> None:
    error = failure(tmp_path, "apis:\n  orders:\n    spec: ./o.yaml\n    base_ulr: https://x\n")
    assert error.code is ErrorCode.CONFIG_INVALID
    assert error.key == "apis.orders.base_ulr"
    assert str(error).startswith(f"{tmp_path / 'specbridge.yaml'}: apis.orders.base_ulr: unknown key")
    assert "base_url" in str(error)


def test_an_unknown_top_level_key_is_rejected(tmp_path: Path) -> None:
    error = failure(tmp_path, "apis: {a: {spec: ./a.yaml}}\nserver: {}\n")
    assert error.key == "server"
    assert "apis" in str(error)


def test_an_unknown_tool_setting_is_rejected(tmp_path: Path) -> None:
    error = failure(tmp_path, "apis:\n  a:\n    spec: ./a.yaml\n    tools:\n      t: {hidden: true}\n")
    assert error.key == "apis.a.tools.t.hidden"
    assert "disabled" in str(error)


@pytest.mark.parametrize("secret", ["hunter2", "Bearer abc", "env:", "vault:x"])
def test_a_secret_written_in_the_config_is_refused(tmp_path: Path, secret: str) -> None:
    error = failure(
        tmp_path, f"apis:\n  a:\n    spec: ./a.yaml\n    auth: {{type: bearer, secret: '{secret}'}}\n"
    )
    assert error.key == "apis.a.auth.secret"
    assert "env:NAME" in str(error)
    assert secret not in str(error) or secret in ("env:",)


def test_a_file_secret_is_relative_to_the_config_and_is_read_only_when_revealed(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("s3cret\n", encoding="utf-8")
    config = load_config(
        write(tmp_path, "apis:\n  a:\n    spec: ./a.yaml\n    auth: {type: bearer, secret: file:token}\n")
    )
    secret = config.apis["a"].auth.secret
    assert secret is not None
    assert secret.reveal() == "s3cret"
    assert "s3cret" not in repr(secret)


def test_an_env_secret_that_is_not_set_says_which_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPECBRIDGE_TEST_UNSET", raising=False)
    with pytest.raises(ConfigError, match="SPECBRIDGE_TEST_UNSET"):
        Secret("env:SPECBRIDGE_TEST_UNSET").reveal()


def test_a_bearer_auth_without_a_secret_is_refused(tmp_path: Path) -> None:
    error = failure(tmp_path, "apis:\n  a:\n    spec: ./a.yaml\n    auth: {type: bearer}\n")
    assert error.key == "apis.a.auth.secret"


def test_wrong_types_say_what_is_valid(tmp_path: Path) -> None:
    assert "on, off or auto" in str(failure(tmp_path, "apis:\n  a: {spec: ./a.yaml, search: maybe}\n"))
    assert "true or false" in str(
        failure(tmp_path, "apis:\n  a: {spec: ./a.yaml, include_deprecated: 'yes'}\n")
    )
    assert "number of seconds" in str(failure(tmp_path, "apis:\n  a: {spec: ./a.yaml, timeout: -1}\n"))


def test_a_config_with_only_lint_settings_reads_and_asking_it_for_an_api_says_none_is_named(
    tmp_path: Path,
) -> None:
    config = load_config(write(tmp_path, "lint: {disable: [catalogue-size]}\n"))
    assert config.apis == {}
    assert config.lint.disable == ("catalogue-size",)
    with pytest.raises(ConfigError, match="apis: names no API"):
        config.api()


def test_asking_for_an_api_by_name_says_which_ones_exist(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "apis:\n  a: {spec: ./a.yaml}\n  b: {spec: ./b.yaml}\n"))
    assert config.api("b").name == "b"
    with pytest.raises(ConfigError, match="no API named 'c'; the config has a, b"):
        config.api("c")
    with pytest.raises(ConfigError, match="several APIs"):
        config.api()


def test_description_max_reaches_the_conversion_and_refuses_a_length_too_short_to_say_anything(
    tmp_path: Path,
) -> None:
    config = load_config(write(tmp_path, "apis:\n  a: {spec: ./a.yaml, description_max: 1024}\n"))
    assert config.apis["a"].convert_options().description_max == 1024
    error = failure(tmp_path, "apis:\n  a: {spec: ./a.yaml, description_max: 50}\n")
    assert error.code is ErrorCode.CONFIG_INVALID
    assert "description_max" in str(error) and "at least 200" in str(error)


def test_a_missing_config_file_has_its_own_code(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nope.yaml")
    assert caught.value.code is ErrorCode.CONFIG_NOT_FOUND


def test_a_config_file_that_never_ends_is_config_too_large_not_a_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("specbridge.config._reader.MAX_CONFIG_BYTES", 1024 * 1024)
    with pytest.raises(ConfigError) as caught:
        load_config("/dev/zero")
    assert caught.value.code is ErrorCode.CONFIG_TOO_LARGE


def test_a_config_that_is_not_yaml_is_a_syntax_error_naming_the_file(tmp_path: Path) -> None:
    error = failure(tmp_path, "apis: [\n")
    assert error.code is ErrorCode.CONFIG_SYNTAX
    assert str(error).startswith(str(tmp_path / "specbridge.yaml"))


def test_tool_overrides_flow_into_convert_options() -> None:
    config = config_from_data(
        {
            "apis": {
                "a": {
                    "spec": "/specs/a.yaml",
                    "include_deprecated": True,
                    "tools": {
                        "listA": {"name": "list_all", "description": "Lists all."},
                        "dropMe": {"disabled": True},
                    },
                }
            }
        },
        source="inline.yaml",
    )
    assert config.apis["a"].convert_options() == ConvertOptions(
        include_deprecated=True,
        overrides={
            "listA": ToolOverride(name="list_all", description="Lists all."),
            "dropMe": ToolOverride(disabled=True),
        },
    )


def test_an_invalid_tool_name_override_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(
            {"apis": {"a": {"spec": "/a.yaml", "tools": {"t": {"name": "bad name!"}}}}}, source="c.yaml"
        )
    assert caught.value.key == "apis.a.tools.t.name"
    assert "letters, digits" in str(caught.value)


def test_a_client_naming_an_unknown_api_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(
            {"apis": {"a": {"spec": "/a.yaml"}}, "clients": {"bot": {"key_sha256": "0" * 64, "apis": ["b"]}}},
            source="c.yaml",
        )
    assert caught.value.key == "clients.bot.apis[0]"


def test_a_clients_display_name_is_read_and_its_id_stands_in_without_one() -> None:
    data = {
        "apis": {"shop": {"spec": "shop.yaml"}},
        "clients": {
            "bot-1": {"apis": ["shop"], "key_sha256": "a" * 64, "display_name": "  Support\n assistant "},
            "bot-2": {"apis": ["shop"], "key_sha256": "b" * 64},
        },
    }
    clients = config_from_data(data, source="specbridge.yaml").clients
    assert clients["bot-1"].shown_name == "Support assistant"
    assert clients["bot-2"].shown_name == "bot-2"
    for bad in ("", "   ", "x" * 81):
        data["clients"]["bot-1"]["display_name"] = bad  # type: ignore[index]
        with pytest.raises(ConfigError) as caught:
            config_from_data(data, source="specbridge.yaml")
        assert "clients.bot-1.display_name" in str(caught.value)
