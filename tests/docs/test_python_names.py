"""The Python the docs name for library users exists: every dotted `specbridge.…` name imports, and a
call written with keywords (`Caller(..., check_workers=False)`, `Approvals(lease=120)`,
`lease_due(…, skip=[…])`) names a public callable (or a method of a public class) that takes them."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import specbridge

from . import _reading

DOTTED = re.compile(r"^(specbridge(?:\.[A-Za-z_]\w*)+)")
FILES = ("yaml", "json", "sarif", "md", "txt")  # `specbridge.yaml` is a file, not a module
CALL = re.compile(r"^([A-Za-z_]\w*)\((.*)\)$")
KEYWORD = re.compile(r"(?:^|,)\s*([a-z_]\w*)=")


def resolve(name: str) -> Any:
    """The object `specbridge.a.b` names; AttributeError or ImportError when there is none."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(name)


def public() -> dict[str, list[Callable[..., Any]]]:
    """Every name exported by specbridge and its packages (`__all__`), with what it is in each."""
    names: dict[str, list[Callable[..., Any]]] = {}
    modules = [specbridge] + [
        importlib.import_module(f"specbridge.{info.name}")
        for info in pkgutil.iter_modules(specbridge.__path__)
        if info.ispkg
    ]
    for module in modules:
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if callable(value):
                names.setdefault(name, []).append(value)
            if inspect.isclass(value):  # `claim(key, …)` in store.md is `Store.claim`
                for method, function in inspect.getmembers(value, inspect.isfunction):
                    if not method.startswith("_"):
                        names.setdefault(method, []).append(function)
    return names


def test_every_dotted_python_name_the_docs_write_imports() -> None:
    missing = []
    for span in _reading.spans():
        found = DOTTED.match(span.text)
        if found is None or found.group(1).rsplit(".", 1)[-1] in FILES:
            continue
        try:
            resolve(found.group(1))
        except (ImportError, AttributeError):
            missing.append(f"{_reading.where(span.page, span.line)}: `{found.group(1)}`")
    assert not missing, "Python names the docs write that do not exist:\n" + "\n".join(missing)


def test_every_keyword_of_a_call_the_docs_write_is_a_parameter() -> None:
    exported = public()
    wrong = []
    for span in _reading.spans():
        call = CALL.match(span.text)
        if call is None or call.group(1) not in exported:
            continue
        keywords = set(KEYWORD.findall(call.group(2)))
        takes = [set(inspect.signature(target).parameters) for target in exported[call.group(1)]]
        if keywords and not any(keywords <= parameters for parameters in takes):
            wrong.append(f"{_reading.where(span.page, span.line)}: `{span.text}`: {sorted(keywords)}")
    assert not wrong, "calls whose keywords the function does not take:\n" + "\n".join(wrong)
