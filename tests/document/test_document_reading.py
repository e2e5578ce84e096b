"""Reading a document: versions, JSON and YAML (1.2 semantics), and one clear error for an unusable one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge import DocumentError, ErrorCode
from specbridge.cli import app
from specbridge.document import load_document, parse_document

MINIMAL = "info: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200: {description: ok}\n"


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0", "3.2.0", "3.0", "3.1"])
def test_openapi_3_0_3_1_and_3_2_documents_are_read(version: str) -> None:
    document = parse_document(f"openapi: {version}\n" + MINIMAL)
    assert document.version == version
    assert [operation.label for operation in document.operations] == ["GET /a"]


def test_a_swagger_2_0_document_is_read() -> None:
    document = parse_document("swagger: '2.0'\n" + MINIMAL)
    assert document.version == "2.0"
    assert len(document.operations) == 1


def test_a_json_document_is_read_as_json() -> None:
    data = {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {}}
    document = parse_document(json.dumps(data))
    assert document.format == "json"
    assert document.title == "T"


def test_an_unquoted_status_key_is_the_string_200() -> None:
    document = parse_document("openapi: 3.0.3\n" + MINIMAL)
    assert [response.status for response in document.operations[0].responses] == ["200"]
    assert "200" in document.data["paths"]["/a"]["get"]["responses"]


def test_yaml_dates_and_yes_stay_strings() -> None:
    document = parse_document(
        "openapi: 3.1.0\ninfo: {title: T, version: 2020-01-01, x-flag: yes, x-off: no, x-on: on}\npaths: {}\n"
    )
    info = document.data["info"]
    assert info["version"] == "2020-01-01"
    assert (info["x-flag"], info["x-off"], info["x-on"]) == ("yes", "no", "on")


def test_a_quoted_date_stays_a_string() -> None:
    document = parse_document("openapi: 3.1.0\ninfo: {title: T, version: '2011-06-21'}\npaths: {}\n")
    assert document.data["info"]["version"] == "2011-06-21"


def test_a_leading_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(
        b"\xef\xbb\xbf" + b'{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {}}'
    )
    document = load_document(path)
    assert "openapi" in document.data
    assert document.version == "3.1.0"


def test_yaml_flow_style_in_a_yaml_file_is_read_as_yaml() -> None:
    document = parse_document("{openapi: 3.1.0, info: {title: T, version: '1'}, paths: {}}", source="x.yaml")
    assert document.version == "3.1.0"


def test_a_missing_file_is_a_document_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as caught:
        load_document(tmp_path / "missing.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_FOUND
    assert "missing.yaml" in str(caught.value)


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"openapi: 3.1.0\ninfo:\n  title: caf\xe9\n")
    with pytest.raises(DocumentError) as caught:
        load_document(path)
    assert caught.value.code is ErrorCode.DOCUMENT_UNREADABLE
    assert caught.value.line == 3
    assert "latin1.yaml:3" in str(caught.value)


def test_bad_json_names_line_and_column() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document('{\n  "openapi": "3.1.0",\n  oops\n}', source="api.json")
    assert caught.value.code is ErrorCode.DOCUMENT_SYNTAX
    assert (caught.value.line, caught.value.column) == (3, 3)
    assert str(caught.value).startswith("api.json:3:3: invalid JSON")


def test_bad_yaml_names_line_and_column() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("openapi: 3.1.0\ninfo:\n  title: [unclosed\npaths: {}\n", source="api.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_SYNTAX
    assert caught.value.line is not None
    assert caught.value.column is not None
    assert str(caught.value).startswith(f"api.yaml:{caught.value.line}:")


def test_duplicate_yaml_keys_are_a_syntax_error() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths: {}\npaths: {}\n")
    assert caught.value.code is ErrorCode.DOCUMENT_SYNTAX


def test_an_empty_document_is_a_syntax_error() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("  \n", source="empty.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_SYNTAX


@pytest.mark.parametrize(
    "text", ["title: not an api\n", "- a\n- b\n", '"just a string"', "# comments only\n", "42\n", "null\n"]
)
def test_a_document_that_is_not_openapi_says_so(text: str) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(text, source="x.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_NOT_OPENAPI


@pytest.mark.parametrize(
    ("text", "pointer"), [("openapi: 4.0.0\n", "/openapi"), ("swagger: '1.2'\n", "/swagger")]
)
def test_an_unsupported_version_names_the_pointer_and_line(text: str, pointer: str) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("info: {title: T}\n" + text + "paths: {}\n", source="x.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_VERSION
    assert caught.value.pointer == pointer
    assert caught.value.line == 2


def test_paths_that_is_not_an_object_names_the_pointer_and_line() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("openapi: 3.1.0\ninfo: {title: T}\npaths:\n  - /a\n", source="x.yaml")
    assert caught.value.code is ErrorCode.DOCUMENT_STRUCTURE
    assert caught.value.pointer == "/paths"
    assert caught.value.line == 3
    assert "x.yaml:3" in str(caught.value)


def test_a_document_without_servers_still_reads_and_notes_it() -> None:
    document = parse_document("openapi: 3.1.0\n" + MINIMAL)
    assert document.servers == ()
    assert "servers-missing" in {note.rule for note in document.notes}


def test_duplicate_operation_ids_still_read() -> None:
    document = parse_document(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n"
        "  /a: {get: {operationId: same, responses: {'200': {description: ok}}}}\n"
        "  /b: {get: {operationId: same, responses: {'200': {description: ok}}}}\n"
    )
    assert [operation.operation_id for operation in document.operations] == ["same", "same"]


def test_server_variables_take_their_defaults() -> None:
    document = parse_document(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths: {}\n"
        "servers: [{url: 'https://{region}.example.com/v1', variables: {region: {default: eu}}}]\n"
    )
    assert document.servers == ("https://eu.example.com/v1",)


def test_path_level_parameters_are_shared_and_an_operation_parameter_overrides_them() -> None:
    document = parse_document(
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a/{id}:\n"
        "    parameters:\n      - {name: id, in: path, required: true, schema: {type: string}}\n"
        "      - {name: q, in: query, description: shared}\n"
        "    get:\n      parameters: [{name: q, in: query, description: own}]\n"
        "      responses: {'200': {description: ok}}\n"
    )
    parameters = {parameter.name: parameter for parameter in document.operations[0].parameters}
    assert parameters["id"].required is True
    assert parameters["q"].description == "own"


class TestCommandLine:
    def run(self, *args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, ["tools", *args])
        return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")

    def test_an_unusable_document_exits_3_with_one_message_and_no_traceback(self, tmp_path: Path) -> None:
        path = tmp_path / "api.yaml"
        path.write_text("openapi: 3.1.0\ninfo: {title: T}\npaths: [1]\n", encoding="utf-8")
        status, output = self.run(str(path))
        assert status == 3
        assert "document-structure" in output
        assert "api.yaml:3" in output
        assert "Traceback" not in output

    @pytest.mark.parametrize(
        ("content", "code"),
        [
            (b"{bad", "document-syntax"),
            (b"\xff\xfe\x00", "document-unreadable"),
            (b"title: x\n", "document-not-openapi"),
            (b"openapi: 9.9.9\npaths: {}\n", "document-version"),
        ],
    )
    def test_every_unusable_document_exits_3(self, tmp_path: Path, content: bytes, code: str) -> None:
        path = tmp_path / "api.json"
        path.write_bytes(content)
        status, output = self.run(str(path))
        assert status == 3
        assert code in output
        assert "Traceback" not in output

    def test_a_missing_document_exits_3(self, tmp_path: Path) -> None:
        status, output = self.run(str(tmp_path / "nope.yaml"))
        assert status == 3
        assert "document-not-found" in output

    def test_a_file_that_never_ends_is_document_too_large_not_a_hang(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("specbridge.document._load.MAX_DOCUMENT_BYTES", 1024 * 1024)
        status, output = self.run("/dev/zero")
        assert status == 3
        assert "document-too-large" in output
        assert "Traceback" not in output


def test_a_referenced_file_past_the_bound_is_document_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specbridge.document._load.MAX_DOCUMENT_BYTES", 2048)
    (tmp_path / "big.yaml").write_text("type: string\ndescription: " + "x" * 4096 + "\n", encoding="utf-8")
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.1.0\n"
        + MINIMAL.replace(
            "responses:", "parameters: [{name: q, in: query, schema: {$ref: big.yaml}}]\n      responses:"
        ),
        encoding="utf-8",
    )
    document = load_document(tmp_path / "api.yaml")  # the document itself is small
    from specbridge.tools import convert

    toolset = convert(document)
    assert toolset.unresolved_refs == {
        "big.yaml": "points at a file that cannot be read (larger than 2048 bytes)"
    }
