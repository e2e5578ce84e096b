"""Signed webhooks: the store's outbox delivered to each receiver the Standard Webhooks way, through the
egress policy."""

from __future__ import annotations

from ._sender import Backoff as Backoff
from ._sender import WebhookSender as WebhookSender
from ._sender import approval_route as approval_route
from ._sender import has_webhooks as has_webhooks
from ._sender import running_webhooks as running_webhooks
from ._signing import SECRET_PREFIX as SECRET_PREFIX
from ._signing import secret_key as secret_key
from ._signing import signature as signature
from ._signing import signed_headers as signed_headers
from ._signing import verify as verify
