"""`ask_small`: one request the gateway makes for itself (to a token endpoint, an authorization server),
its whole answer read within a time bound and a size bound, every failure one error that names what
was asked (`what`) and never a token or a secret.

    status, body = await ask_small(client, "POST", url, what="the token endpoint", limit=64 * 1024,
                                   timeout=10.0, failed=GrantError, data=form)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import httpx

from .._errors import SpecbridgeError


async def ask_small(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    what: str,
    limit: int,
    timeout: float,
    failed: Callable[[str], Exception],
    **options: Any,
) -> tuple[int, bytes]:
    """(status, the answer's raw bytes); `failed(why)` raised when the answer is over `limit` bytes, is
    not whole within `timeout` seconds, or the address cannot be reached (the egress policy included)."""
    too_big = False
    try:
        with anyio.fail_after(timeout):
            async with client.stream(method, url, **options) as response:
                body = bytearray()
                async for chunk in response.aiter_raw():
                    body += chunk
                    if len(body) > limit:
                        too_big = True
                        break
                status = response.status_code
    except TimeoutError:
        raise failed(f"{what} gave no whole answer within {timeout:g} s") from None
    except SpecbridgeError as error:  # the egress policy refused the address, or DNS failed
        raise failed(f"{what} cannot be reached: {error.message}") from None
    except httpx.HTTPError as error:
        raise failed(f"{what} cannot be reached ({type(error).__name__})") from None
    if too_big:
        raise failed(f"{what} answered more than {limit // 1024} KB")
    return status, bytes(body)
