"""`code_mode:` — an API served as two tools, a search of its operations and a sandboxed script that
calls them (codemode/), and the limits on one script.

```yaml
code_mode: {time: 10s, memory: 64MB, calls: 50, output: 1MB, depth: 200, workers: 4}   # every API's
apis:
  shop:
    code_mode: on              # on | off (default; true | false too), or limits of its own: {calls: 200}
toolsets:
  support:
    code_mode: on              # the same values: a script over the toolset's tools, each on its own API
```

The setting of one API (or toolset) is a `CodeModeConfig` read by `code_mode_setting`, which takes what
it inherits from the top level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError

if TYPE_CHECKING:
    from ._model import Config

Fail = Callable[[list[str | int], str], ConfigError]
Parse = Callable[[Any], Any]
MiB = 1024 * 1024
LIMITS = ("time", "memory", "calls", "output", "depth")  # what an API (or toolset) may set of its own


@dataclass(frozen=True, slots=True)
class CodeModeConfig:
    """Whether an API is served in code mode, and the limits on one of its scripts. `time`: seconds the
    script itself runs (waits for its API calls do not count); `memory`: its heap in bytes; `calls`:
    API calls one script may make; `output`: bytes it may print; `depth`: how deep its calls may nest.
    `workers`: sandbox processes of one gateway (top level only), each running one script at a time."""

    enabled: bool = False
    time: float = 10.0
    memory: int = 64 * MiB
    calls: int = 50
    output: int = 1 * MiB
    depth: int = 200
    workers: int = 4


def code_mode_limits(
    raw: Mapping[str, Any],
    inherited: CodeModeConfig,
    key: list[str | int],
    fail: Fail,
    duration: Parse,
    size: Parse,
) -> CodeModeConfig:
    """The limits `raw` sets over `inherited` (the schema checked the keys and their shapes)."""
    found = inherited
    for name, value in raw.items():
        try:
            if name == "time":
                found = replace(found, time=float(duration(value)))
            elif name == "memory":
                found = replace(found, memory=int(size(value)))
            elif name == "output":
                found = replace(found, output=int(size(value)))
            elif name == "calls":
                found = replace(found, calls=int(value))
            elif name == "depth":
                found = replace(found, depth=int(value))
            elif name == "workers":
                found = replace(found, workers=int(value))
        except ValueError as error:
            raise fail([*key, name], str(error)) from None
    return found


def code_mode_setting(
    raw: Any, inherited: CodeModeConfig, key: list[str | int], fail: Fail, duration: Parse, size: Parse
) -> CodeModeConfig:
    """One API's (or toolset's) `code_mode`: `on`, `off` (the default), or limits of its own, which
    turn it on."""
    if raw is None or raw is False or raw == "off":
        return replace(inherited, enabled=False)
    if raw is True or raw == "on":
        return replace(inherited, enabled=True)
    return replace(code_mode_limits(raw, inherited, key, fail, duration, size), enabled=True)


def read_code_mode(
    top: Mapping[str, Any], config: Config, fail: Fail, *, duration: Parse, size: Parse
) -> Config:
    """`config` with `code_mode` read: the top level's limits, and each API's and toolset's setting over
    them (after `read_toolsets`)."""
    limits = code_mode_limits(
        top.get("code_mode") or {}, CodeModeConfig(), ["code_mode"], fail, duration, size
    )
    raw_apis = top.get("apis") or {}
    apis = {
        name: replace(
            api,
            code_mode=code_mode_setting(
                (raw_apis.get(name) or {}).get("code_mode"),
                limits,
                ["apis", name, "code_mode"],
                fail,
                duration,
                size,
            ),
        )
        for name, api in config.apis.items()
    }
    raw_toolsets = top.get("toolsets") or {}
    toolsets = {
        name: replace(
            toolset,
            code_mode=code_mode_setting(
                (raw_toolsets.get(name) or {}).get("code_mode"),
                limits,
                ["toolsets", name, "code_mode"],
                fail,
                duration,
                size,
            ),
        )
        for name, toolset in config.toolsets.items()
    }
    return replace(config, apis=apis, toolsets=toolsets, code_mode=limits)
