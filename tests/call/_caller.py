"""The call layer's test pieces: the test API document (tests/support/documents.py) as a toolset, a bounded
call, an API config, and the `make_caller` fixture (registered by conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

from specbridge.call import Caller
from specbridge.config import AnswersConfig, ApiConfig, AuthConfig, EgressConfig, Secret, ToolConfig
from specbridge.document import from_data
from specbridge.tools import ToolSet, convert
from tests.support.documents import DOCUMENT
from tests.support.secret import SECRET as SECRET  # the credential `secret_env` puts in the environment
from tests.support.upstream import Upstream


def toolset_for(document: dict[str, Any] | None = None) -> ToolSet:
    return convert(from_data(document or DOCUMENT, source="test.yaml"))


MakeCaller = Callable[..., Caller]


async def call(caller: Caller, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    """One call through `caller`, bounded: no test waits for ever."""
    with anyio.fail_after(10):
        return await caller.call(tool, arguments, **kwargs)


def api_config(
    base_url: str,
    *,
    allow: tuple[str, ...] = (),
    auth: AuthConfig | None = None,
    timeout: float = 10.0,
    redirects: int = 0,
    tools: dict[str, ToolConfig] | None = None,
    answers: AnswersConfig | None = None,
) -> ApiConfig:
    return ApiConfig(
        name="test",
        spec="test.yaml",
        base_url=base_url,
        auth=auth or AuthConfig(),
        timeout=timeout,
        egress=EgressConfig(allow=allow, redirects=redirects),
        tools=tools or {},
        answers=answers or AnswersConfig(),
    )


@pytest.fixture
async def make_caller(upstream: Upstream, secret_env: str) -> AsyncIterator[MakeCaller]:
    """`make_caller(auth_type="bearer", base_path="/v1", **api_config_kwargs)`: a Caller for DOCUMENT
    against the loopback upstream (allowed explicitly), closed after the test."""
    callers: list[Caller] = []

    def make(
        *,
        auth_type: str = "bearer",
        auth_name: str = "",
        base_path: str = "/v1",
        document: dict[str, Any] | None = None,
        secrets: dict[str, Secret] | None = None,
        **kwargs: Any,
    ) -> Caller:
        auth = AuthConfig(
            type=auth_type,  # type: ignore[arg-type]
            name=auth_name,
            secret=Secret(secret_env) if auth_type != "none" else None,
            secrets=secrets or {},
        )
        kwargs.setdefault("allow", (upstream.address,))
        caller = Caller(api_config(upstream.url + base_path, auth=auth, **kwargs), toolset_for(document))
        callers.append(caller)
        return caller

    yield make
    for caller in callers:
        await caller.aclose()
