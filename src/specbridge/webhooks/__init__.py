"""Signed webhooks: the store's outbox delivered to each receiver the Standard Webhooks way, through the
egress policy.

Modules:

- `_sender`: `WebhookSender`, the outbox delivered: one receiver's events of one call in order,
  receivers independently, through the egress policy.
- `_signing`: Standard Webhooks signatures, and `verify`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._signing import SECRET_PREFIX as SECRET_PREFIX
from ._signing import secret_key as secret_key
from ._signing import signature as signature
from ._signing import signed_headers as signed_headers
from ._signing import verify as verify

if TYPE_CHECKING:  # loaded on first use: the sender needs httpx and the store, which the light form
    from ._sender import Backoff as Backoff  # has not (`webhooks verify` needs only `_signing`)
    from ._sender import WebhookSender as WebhookSender
    from ._sender import approval_route as approval_route
    from ._sender import has_webhooks as has_webhooks
    from ._sender import running_webhooks as running_webhooks

__getattr__, __dir__ = lazy_exports(__name__)
