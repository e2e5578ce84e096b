"""The package's public surface stays deliberate."""

from __future__ import annotations

import specbridge
import specbridge.document
import specbridge.tools


def _isort_style(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_and_every_name_exists() -> None:
    assert list(specbridge.__all__) == sorted(specbridge.__all__)
    for module in (specbridge, specbridge.document, specbridge.tools):
        missing = [name for name in module.__all__ if not hasattr(module, name)]
        assert missing == [], module.__name__
        assert len(set(module.__all__)) == len(module.__all__)


def test_the_subpackages_list_their_names_in_ruff_s_order() -> None:
    for module in (specbridge.document, specbridge.tools):
        assert list(module.__all__) == sorted(module.__all__, key=_isort_style), module.__name__


def test_the_names_other_layers_import_stay_public() -> None:
    for name in ("Tool", "Argument", "Body", "ToolSet", "convert", "strict_schema", "is_forbidden_header"):
        assert name in specbridge.tools.__all__
    for name in ("ApiDocument", "Operation", "load_document", "parse_document", "Resolver"):
        assert name in specbridge.document.__all__
