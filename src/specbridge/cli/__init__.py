"""The `specbridge` command. Each command lives in its own module and only wires the package together."""

from . import _tools  # noqa: F401  (registers `tools`)
from ._app import app


def main() -> None:
    app(prog_name="specbridge")


__all__ = ["app", "main"]
