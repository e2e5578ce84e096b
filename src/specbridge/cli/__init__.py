"""The `specbridge` command. Each command lives in its own module (see `_app.COMMAND_MODULES`) and only
wires the package together."""

from ._app import app


def main() -> None:
    app(prog_name="specbridge")


__all__ = ["app", "main"]
