"""The drawing in `_errors.py`'s docstring is the whole tree: every `SpecbridgeError` class of the
package appears in it, under its own parent."""

from __future__ import annotations

import importlib
import pkgutil
import re

import specbridge
from specbridge import _errors
from specbridge._errors import SpecbridgeError


def every_error_class() -> set[type[SpecbridgeError]]:
    for module in pkgutil.walk_packages(specbridge.__path__, "specbridge."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: set[type[SpecbridgeError]] = set()
    waiting: list[type[SpecbridgeError]] = [SpecbridgeError]
    while waiting:
        klass = waiting.pop()
        if klass.__module__.startswith("specbridge") and not klass.__name__.startswith("_"):
            found.add(klass)
        waiting.extend(klass.__subclasses__())
    return found


def drawn() -> dict[str, int]:
    """Each class name of the drawing, with its depth in the tree."""
    assert _errors.__doc__ is not None
    names = {}
    for line in _errors.__doc__.splitlines():
        match = re.match(r"^ {4}((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\b", line)
        if match and (match.group(2) == "SpecbridgeError" or "── " in line):
            names[match.group(2)] = len(match.group(1)) // 4 + (
                0 if match.group(2) == "SpecbridgeError" else 1
            )
    return names


def test_every_error_class_of_the_package_is_in_the_drawing() -> None:
    missing = sorted(klass.__name__ for klass in every_error_class() if klass.__name__ not in drawn())
    assert missing == [], f"add these to the drawing in src/specbridge/_errors.py: {missing}"


def test_every_class_is_drawn_under_its_own_parent() -> None:
    depth = drawn()
    for klass in every_error_class() - {SpecbridgeError}:
        parent = next(base for base in klass.__mro__[1:] if issubclass(base, SpecbridgeError))
        if klass.__name__ in depth and parent.__name__ in depth:
            assert depth[klass.__name__] == depth[parent.__name__] + 1, klass.__name__
