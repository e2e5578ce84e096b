"""`call/_media.py`: the one filename rule, one well-formed media type, and the type a browser reads from
a list; and the multipart part headers a call sends upstream, which follow them."""

from __future__ import annotations

import pytest

from specbridge.call._media import browser_media_type, is_media_type, safe_filename
from tests.call._caller import MakeCaller
from tests.call._caller import call as _call
from tests.support.upstream import Upstream


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("/abs/path/a b.txt", "a b.txt"),
        ("..", None),
        ("a/..", None),
        ("a/.", None),
        ("x/\x00..", None),
        ("evil\r\nX-Injected: 1.txt", "evilX-Injected: 1.txt"),
        ("tab\there\x7f\x1b[31m.txt", "tabhere[31m.txt"),
        ("invoice\u202egpj.exe", "invoicegpj.exe"),  # a right-to-left override is not printable
        ("zero\u200bwidth.txt", "zerowidth.txt"),
        ("  padded.txt  ", "padded.txt"),
        ("", None),
        (None, None),
        ("é-ü.txt", "é-ü.txt"),
        ("x" * 300, "x" * 255),
    ],
)
def test_a_filename_is_its_last_segment_in_printable_characters(given: str | None, kept: str | None) -> None:
    assert safe_filename(given) == kept


@pytest.mark.parametrize(
    "value",
    ["text/plain", "image/svg+xml", "text/plain; charset=utf-8", 'multipart/mixed; boundary="a b;c"'],
)
def test_one_well_formed_media_type_is_a_media_type(value: str) -> None:
    assert is_media_type(value)


@pytest.mark.parametrize(
    "value",
    [
        "text/plain\n",  # `$` would let a final newline through: the whole value must match
        "text/plain\r\nX-Injected: 1",
        "text/plain; charset=utf-8\n",
        "application/octet-stream, text/html",
        "image/svg+xml,",
        "text",
        "text/",
        "/html",
        "text/html; charset",
        'text/plain; x="unterminated',
        "text/plain\x00",
        "téxt/plain",
        "",
        None,
        "a/" + "b" * 300,
    ],
)
def test_anything_else_is_not_a_media_type(value: str | None) -> None:
    assert not is_media_type(value)


@pytest.mark.parametrize(
    ("header", "read"),
    [
        ("application/pdf", "application/pdf"),
        ("Text/HTML; Charset=UTF-8", "text/html;charset=UTF-8"),
        ("application/octet-stream, text/html", "text/html"),
        ("image/svg+xml,", "image/svg+xml"),
        ("text/html, */*", "text/html"),
        ("application/octet-stream, nonsense", "application/octet-stream"),
        ('text/plain; x="a,b", image/png', "image/png"),
        ("text/plain\n", "text/plain"),  # whitespace around an item is stripped, as browsers do
        ("nonsense", None),
        ("", None),
        (None, None),
    ],
)
def test_a_list_is_read_the_way_browsers_read_it(header: str | None, read: str | None) -> None:
    assert browser_media_type(header) == read


async def test_a_file_part_sent_upstream_keeps_only_the_last_printable_segment_of_its_name(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(
        make_caller(),
        "upload",
        {"caption": "hi"},
        attachments={"file": ('../../x"\r\n\x00evil.png', "image/png", b"\x89PNG\r\n")},
    )
    body = upstream.requests[-1].body
    head = body.split(b"\r\n\r\n", 1)[0]
    assert b'filename="x%22evil.png"' in head
    assert b"../" not in head and b"\x00" not in head
    assert head.count(b"\r\n") == 2  # the boundary, the disposition, the type: no line of its own


async def test_a_part_type_ending_in_a_newline_is_not_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(
        make_caller(),
        "upload",
        {"caption": "hi"},
        attachments={"file": ("cat.png", "image/png\n", b"\x89PNG\r\n")},
    )
    body = upstream.requests[-1].body
    assert b"image/png\n" not in body and b"Content-Type: image/png" not in body
    assert b'filename="cat.png"\r\n\r\n\x89PNG' in body


async def test_a_file_part_whose_name_is_only_dots_is_named_after_its_field(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    await _call(make_caller(), "upload", {"caption": "hi"}, attachments={"file": ("..", "text/plain", b"x")})
    assert b'name="file"; filename="file"' in upstream.requests[-1].body
