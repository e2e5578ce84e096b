"""The `specbridge` command. Each command lives in its own module and only wires the package together."""

from . import _demo, _tools  # noqa: F401  (each module registers its command)
from ._app import app


def main() -> None:
    app(prog_name="specbridge")


__all__ = ["app", "main"]
