"""Who may call: client and admin keys (made once, stored as SHA-256, compared in constant time)."""

from __future__ import annotations

from ._keys import ADMIN_KEY_PREFIX as ADMIN_KEY_PREFIX
from ._keys import KEY_PREFIX as KEY_PREFIX
from ._keys import KeyHolder as KeyHolder
from ._keys import Refusal as Refusal
from ._keys import authenticate as authenticate
from ._keys import find_client as find_client
from ._keys import key_sha256 as key_sha256
from ._keys import new_key as new_key
from ._keys import presented_key as presented_key
