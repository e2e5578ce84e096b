"""The tests' own layer rule (tests/support/layout.py), on this tree and on a small one with each kind
of offence planted: no test module is imported, and a test reaches only into its own package."""

from __future__ import annotations

from pathlib import Path

from tests.support.layout import FOREIGN_HELPER, FOREIGN_PRIVATE, TEST_IMPORTS_TEST, offences

ROOT = Path(__file__).resolve().parents[1]


def test_no_test_imports_a_test_module_or_another_packages_insides() -> None:
    assert offences(ROOT) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _fake(root: Path, **planted: str) -> Path:
    """A repository of two packages, `call` and `gateway`, a ground module and their tests, each test
    keeping the rules, with `planted` (path: source) added."""
    return _tree(
        root,
        {
            "src/specbridge/__init__.py": "",
            "src/specbridge/_errors.py": "",
            "src/specbridge/call/__init__.py": "",
            "src/specbridge/call/_plan.py": "",
            "src/specbridge/gateway/__init__.py": "",
            "src/specbridge/gateway/_server.py": "",
            "tests/__init__.py": "",
            "tests/conftest.py": "from tests.support.stores import store\n",
            "tests/support/__init__.py": "",
            "tests/support/stores.py": "from specbridge._errors import StoreError\n",
            "tests/call/__init__.py": "",
            "tests/call/conftest.py": "from tests.call._caller import make_caller\n",
            "tests/call/_caller.py": "from specbridge.call._plan import Plans\n",
            "tests/call/test_plan.py": (
                "from specbridge.call import _plan\nfrom specbridge._errors import _private\n"
                "from tests.call._caller import call\nfrom ._caller import SECRET\n"
            ),
            "tests/gateway/__init__.py": "",
            "tests/gateway/test_server.py": "from specbridge.gateway._server import serve\nfrom specbridge.call import Caller\n",
            "tests/test_errors.py": "from specbridge._errors import ErrorCode\nfrom tests.support import stores\n",
            **{name.replace("__", "/") + ".py": text for name, text in planted.items()},
        },
    )


def test_a_tree_that_keeps_the_rules_has_no_offence(tmp_path: Path) -> None:
    assert offences(_fake(tmp_path)) == []


def test_importing_a_test_module_or_a_conftest_is_an_offence_however_it_is_spelled(tmp_path: Path) -> None:
    root = _fake(
        tmp_path,
        tests__gateway__test_two=(
            "from tests.gateway.test_server import ADMIN\n"  # absolute
            "from .test_server import ORDER\n"  # relative
            "from tests.call.conftest import make_caller\n"  # another folder's conftest
            "from tests import conftest\n"  # a module named as a name
            "def later():\n    import tests.gateway.test_server\n"  # inside a function
        ),
    )
    assert offences(root) == [
        f"tests/gateway/test_two.py:1: {TEST_IMPORTS_TEST}: tests.gateway.test_server",
        f"tests/gateway/test_two.py:2: {TEST_IMPORTS_TEST}: tests.gateway.test_server",
        f"tests/gateway/test_two.py:3: {TEST_IMPORTS_TEST}: tests.call.conftest",
        f"tests/gateway/test_two.py:4: {TEST_IMPORTS_TEST}: tests.conftest",
        f"tests/gateway/test_two.py:6: {TEST_IMPORTS_TEST}: tests.gateway.test_server",
    ]


def test_another_folders_helper_is_an_offence_from_a_folder_a_top_level_test_and_support(
    tmp_path: Path,
) -> None:
    root = _fake(
        tmp_path,
        tests__gateway__test_two="from tests.call._caller import call\nfrom ..call import _caller\n",
        tests__test_top="from tests.call._caller import call\n",
        tests__support__gateway="from tests.call._caller import call\n",
    )
    assert offences(root) == [
        f"tests/gateway/test_two.py:1: {FOREIGN_HELPER}: tests.call._caller",
        f"tests/gateway/test_two.py:2: {FOREIGN_HELPER}: tests.call._caller",
        f"tests/support/gateway.py:1: {FOREIGN_HELPER}: tests.call._caller",
        f"tests/test_top.py:1: {FOREIGN_HELPER}: tests.call._caller",
    ]


def test_another_packages_private_module_or_name_is_an_offence_its_public_names_are_not(
    tmp_path: Path,
) -> None:
    root = _fake(
        tmp_path,
        tests__gateway__test_two=(
            "from specbridge.call._plan import Plans\n"
            "from specbridge.call import _plan, Caller\n"
            "import specbridge.call._plan\n"
            "from specbridge.call import Caller\n"  # public: no offence
        ),
        tests__support__plans="from specbridge.call._plan import Plans\n",
        tests__test_top="from specbridge.gateway._server import serve\n",
    )
    assert offences(root) == [
        f"tests/gateway/test_two.py:1: {FOREIGN_PRIVATE}: specbridge.call._plan ['_plan']",
        f"tests/gateway/test_two.py:2: {FOREIGN_PRIVATE}: specbridge.call._plan ['_plan']",
        f"tests/gateway/test_two.py:3: {FOREIGN_PRIVATE}: specbridge.call._plan ['_plan']",
        f"tests/support/plans.py:1: {FOREIGN_PRIVATE}: specbridge.call._plan ['_plan']",
        f"tests/test_top.py:1: {FOREIGN_PRIVATE}: specbridge.gateway._server ['_server']",
    ]
