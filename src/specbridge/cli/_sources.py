"""What `lint` and `tools` read: SPEC (a file, an http(s):// URL or `-` for stdin) and/or the APIs of
`--config FILE [--api NAME]`, each with the settings of the config API it belongs to.

- `SPEC` alone: the document on the defaults (a URL fetched from public addresses only).
- `SPEC --config FILE`: the document with the settings of the config's API whose `spec` it is (or of
  `--api NAME`); that API's `egress` rules fetch a URL, and its config `operations` join it.
- `--config FILE [--api NAME]` without SPEC: the config's APIs themselves (their `spec`, their
  `operations`, or both), every one for `lint`, the named or only one for `tools`.
- `--config FILE --api TOOLSET`: each API a toolset of the config picks from, only the tools it picks,
  as the toolset serves them (renamed, re-described: `tools.compose`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..document import ApiDocument, is_url, load_document
from ..tools import ConvertOptions, Pick, ToolSet, convert

if TYPE_CHECKING:
    from ..config import ApiConfig, Config, ToolsetConfig

# `specbridge.config` (its schema, its reader) loads only when a config is given: a command without
# one starts a few hundredths of a second sooner.

STDIN = "-"


@dataclass(frozen=True, slots=True)
class Source:
    """One thing to read: `spec` (None: the config API's own document) with `api`'s settings, if any."""

    spec: str | None
    api: ApiConfig | None = None
    toolset_of: tuple[Config, ToolsetConfig] | None = None  # a toolset's tools of `api`: only those

    @property
    def picks(self) -> tuple[Pick, ...]:
        assert self.toolset_of is not None and self.api is not None
        return tuple(pick for pick in self.toolset_of[1].tools if pick.api == self.api.name)

    @property
    def served(self) -> ApiConfig | None:
        """`api` as its tools are handed over here: a toolset's part in the toolset's search mode and code
        mode (what lint's `catalogue-size` reads), else the API's own."""
        if self.toolset_of is None or self.api is None:
            return self.api
        toolset = self.toolset_of[1]
        return replace(self.api, search=toolset.search, code_mode=toolset.code_mode)

    def document(self) -> ApiDocument:
        api = self.api
        if api is None:
            assert self.spec is not None
            return load_document(self.spec)
        from ..config import api_document, fetch_rules

        if self.spec is None or _same(self.spec, api.spec):
            return api_document(api)
        return load_document(self.spec, ref_dirs=api.ref_dirs, rules=fetch_rules(api))

    def toolset(self) -> ToolSet:
        if self.api is None:
            return convert(self.document(), ConvertOptions())
        from ..config import api_toolset

        converted = api_toolset(self.api, self.document())
        if self.toolset_of is None:
            return converted
        from ..call import answer_tools
        from ..config import check_toolset_tools
        from ..tools import compose

        config, toolset = self.toolset_of
        served = answer_tools(self.api, converted)  # as its API serves them, then as the toolset does
        check_toolset_tools(config, toolset, {self.api.name: served})
        return replace(served, tools=tuple(c.tool for c in compose(self.picks, {self.api.name: served})))


def _same(spec: str, configured: str) -> bool:
    """Whether SPEC names the config API's `spec` (a URL as written, a path once resolved)."""
    if not configured or spec == STDIN:
        return False
    if is_url(spec) or is_url(configured):
        return spec.strip() == configured.strip()
    return str(Path(spec).resolve()) == configured


def read_config(config_path: str | None) -> Config | None:
    """The config of `--config FILE`, read once per command (None without the option)."""
    if config_path is None:
        return None
    from ..config import load_config

    return load_config(config_path)


def sources(
    specs: tuple[str, ...], config: Config | None, api_name: str | None, *, every_api: bool
) -> list[Source]:
    """The sources of a command line (`config`: its `--config`, `read_config`); `every_api`: without
    SPEC, all the config's APIs (lint), not the named or only one (tools)."""
    if not specs:
        if config is None:
            raise click.UsageError("give SPEC (a file, an http(s):// URL or `-` for stdin), or --config FILE")
        if api_name is not None and api_name in config.toolsets:
            toolset = config.toolsets[api_name]
            return [Source(None, config.api(api), (config, toolset)) for api in toolset.apis]
        if api_name is None and every_api and config.apis:
            return [Source(None, api) for api in config.apis.values()]
        return [Source(None, config.api(api_name))]
    if specs.count(STDIN) > 1:
        raise click.UsageError("`-` (stdin) can be read once")
    if len(specs) == 1:
        return [Source(specs[0], _api_for(specs[0], config, api_name))]
    return [Source(spec, _api_of(spec, config)) for spec in specs]


def _api_for(spec: str, config: Config | None, api_name: str | None) -> ApiConfig | None:
    """The config entry whose `spec` is SPEC (or the named or only API), when a config file is given."""
    if config is None or (api_name is None and not config.apis):
        return None  # a config with only `lint:` settings
    if api_name is None:
        found = _api_of(spec, config)
        if found is not None:
            return found
    return config.api(api_name)


def _api_of(spec: str, config: Config | None) -> ApiConfig | None:
    """The config's API whose `spec` is this document, if any (a document the config does not serve is
    read on the defaults)."""
    if config is None:
        return None
    return next((api for api in config.apis.values() if _same(spec, api.spec)), None)
