"""The `specbridge` command. Each command lives in its own module (see `_app.COMMAND_MODULES`) and only
wires the package together.

Modules:

- `_app`: the command group, and the one place errors become messages and exit codes (its `main` is
  the last guard: one `internal-error` line, never a traceback).
- `_lint`, `_tools`, `_call`, `_serve`, `_keys`, `_approvals`, `_store`, `_webhooks`, `_install`,
  `_demo`: one module per command (`specbridge lint`, `tools`, …), each imported only when it runs.
- `_sources`: what `lint` and `tools` read: SPEC (a file, a URL or `-`) and/or the APIs of `--config`.
- `_serving`: `serve` once its options are checked: the stdio front, then the gateway over stdio or HTTP.
- `_workers`: `serve --workers N`: N gateway processes sharing one port.
- `_install_checks`: what `install` checks before it writes an entry (its values, and `serve`'s start).
- `_code_mode`: `tools --code-mode`, the two tools of code mode.
- `_demo_code`: the part of `demo` that shows code mode.
- `_output`: output files written safely, and whether a terminal gets colour.
"""

from ._app import EXIT_FINDINGS as EXIT_FINDINGS
from ._app import EXIT_OK as EXIT_OK
from ._app import EXIT_UNREADABLE as EXIT_UNREADABLE
from ._app import PROCESS, app


def main() -> None:
    PROCESS.append(True)
    app(prog_name="specbridge")


__all__ = ["app", "main"]
