"""The `specbridge` command. Each command lives in its own module (see `_app.COMMAND_MODULES`) and only
wires the package together."""

from ._app import PROCESS, app


def main() -> None:
    PROCESS.append(True)
    app(prog_name="specbridge")


__all__ = ["app", "main"]
