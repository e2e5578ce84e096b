"""The question the client's user reads (service/_asking.py): every value that will be sent, each cut on
its own, every key shown, the sizes said; an approval too large to show is not asked."""

from __future__ import annotations

from specbridge.service._asking import MAX_VALUE, leaves, question, visible


def test_a_long_value_first_cannot_hide_the_values_after_it() -> None:
    arguments = {"note": "n" * 5000, "amount": 999999, "payment": {"memo": "m" * 3000, "currency": "EUR"}}
    text = question("shop", "refundOrder", arguments, {"path.shopId": "s1"})
    assert text is not None
    assert '"amount":999999' in text and '"payment.currency":"EUR"' in text
    assert '"note":"' + "n" * (MAX_VALUE - 1) + "…" in text and "5,002 characters in all" in text
    assert "Arguments from the assistant (4 values, " in text
    assert (
        "Values the gateway adds (the assistant did not choose them) (1 value, 20 characters in all):" in text
    )
    assert '"path.shopId":"s1"' in text
    assert len(text) < 2000


def test_every_item_of_a_list_is_a_value_of_its_own_and_empty_parts_are_said() -> None:
    assert list(leaves({"items": [{"qty": 1}, {"qty": 2}], "none": {}, "empty": []})) == [
        ("items[0].qty", 1),
        ("items[1].qty", 2),
        ("none", {}),
        ("empty", []),
    ]
    text = question("shop", "ping", {}, {})
    assert text is not None and "Arguments from the assistant: none" in text


def test_characters_that_could_make_one_value_read_as_another_are_shown_escaped() -> None:
    text = question("shop", "pay", {"to": "alice\u202e\u200bmallory"}, {})
    assert text is not None and "\u202e" not in text and "\u200b" not in text
    assert "alice\\u202e\\u200bmallory" in text
    assert visible("plain words stay") == "plain words stay"


def test_an_approval_too_large_to_show_is_not_asked() -> None:
    many = {"orders": [{"product": f"p{n}", "quantity": n} for n in range(150)]}
    assert question("shop", "importOrders", many, {}) is None
    wide = {f"field{n}": "x" * 500 for n in range(60)}  # each cut, but the whole too long to read
    assert question("shop", "importOrders", wide, {}) is None
