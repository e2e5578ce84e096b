"""`CallResult`: what one call hands on. A plain result is a success without a code; a result is a value
(equal by content, never changed after it is made), as the approval store and the gateway compare them."""

from __future__ import annotations

import dataclasses

import pytest

from specbridge import ErrorCode
from specbridge.call import BinaryContent, CallResult, ImageContent


def test_a_result_with_only_text_is_a_success_with_no_code_status_or_content() -> None:
    result = CallResult(text="ok")
    assert (result.is_error, result.code, result.status) == (False, None, None)
    assert (result.structured, result.image, result.binary) == (None, None, None)


def test_results_with_the_same_content_are_equal_and_any_difference_tells_them_apart() -> None:
    image = ImageContent(b"\x89PNG", "image/png")
    one = CallResult(text="ok", status=200, structured={"id": 1}, image=image)
    assert one == CallResult(
        text="ok", status=200, structured={"id": 1}, image=ImageContent(b"\x89PNG", "image/png")
    )
    assert one != dataclasses.replace(one, status=201)
    assert one != dataclasses.replace(one, image=ImageContent(b"\x89PNG", "image/gif"))


def test_a_result_cannot_be_changed_once_made() -> None:
    result = CallResult(text="refused", is_error=True, code=ErrorCode.UPSTREAM_STATUS, status=404)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.text = "fine"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        result.extra = 1  # type: ignore[attr-defined]


def test_a_binary_answer_keeps_its_bytes_type_and_the_name_the_api_gave_it() -> None:
    pdf = BinaryContent(b"%PDF-1.7", "application/pdf", "r1.pdf")
    result = CallResult(text="a PDF of 8 bytes", binary=pdf)
    assert result.binary is not None
    assert (result.binary.data, result.binary.mime_type, result.binary.filename) == (
        b"%PDF-1.7",
        "application/pdf",
        "r1.pdf",
    )
    assert BinaryContent(b"x", "application/zip").filename is None
