"""`files/_files.py`: a file reference turned into the attachment a call sends, under the one filename
rule and with a type that can be a header; a binary answer kept with the type a browser reads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from specbridge import ErrorCode
from specbridge._errors import CallError
from specbridge.call import BinaryContent, CallResult
from specbridge.config import FilesConfig
from specbridge.files import Files
from specbridge.store import Store, open_store
from tests.files._fields import tools


@pytest.fixture
async def files(tmp_path: Path) -> AsyncIterator[Files]:
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as store:

        async def opened() -> Store:
            return store

        yield Files(opened, lambda: FilesConfig())


@pytest.mark.parametrize("content_type", ["image/png\n", "image/png\r\nX-Evil: 1", "a, text/html", "png"])
async def test_a_content_type_that_cannot_be_a_header_is_refused_naming_the_field(
    tmp_path: Path, files: Files, content_type: str
) -> None:
    record = await files.put("bot", b"\x89PNG", "image/png", "cat.png")
    tool = tools(tmp_path).get("sendForm")
    assert tool is not None
    with pytest.raises(CallError) as refused:
        await files.attachments(tool, "bot", {"file": {"file_id": record.id, "content_type": content_type}})
    assert refused.value.code == ErrorCode.ARGUMENTS_INVALID
    assert "file.content_type" in refused.value.message and "nothing was sent" in refused.value.message


async def test_a_name_an_agent_gives_follows_the_filename_rule(tmp_path: Path, files: Files) -> None:
    record = await files.put("bot", b"\x89PNG", "image/png", "cat.png")
    tool = tools(tmp_path).get("sendForm")
    assert tool is not None
    reference = {"file_id": record.id, "filename": "../../etc/passwd\x00", "content_type": "image/png"}
    _, attachments = await files.attachments(tool, "bot", {"file": reference})
    assert attachments["file"] == ("passwd", "image/png", b"\x89PNG")


async def test_an_answer_typed_as_a_list_is_kept_as_the_type_a_browser_reads(files: Files) -> None:
    answer = CallResult(
        "The API answered 200 with 5 bytes.",
        binary=BinaryContent(b"<svg/>", "image/svg+xml,", "../../x\r\n.svg"),
    )
    kept = await files.keep_answer("bot", answer)
    file_id = kept.text.split("kept as the file ", 1)[1].split(" ", 1)[0]
    found = await (await files.store()).get_file(file_id, "bot", 0.0)
    assert found is not None
    assert (found[0].content_type, found[0].filename) == ("image/svg+xml", "x.svg")


async def test_a_kept_type_that_cannot_be_a_header_is_sent_as_octet_stream(
    tmp_path: Path, files: Files
) -> None:
    record = await files.put(
        "bot", b"%PDF", "application/pdf\r\nX-Evil: 1", "a.pdf"
    )  # as an older gateway kept it
    tool = tools(tmp_path).get("sendForm")
    assert tool is not None
    _, attachments = await files.attachments(tool, "bot", {"file": {"file_id": record.id}})
    assert attachments["file"] == ("a.pdf", "application/octet-stream", b"%PDF")
