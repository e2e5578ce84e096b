"""The one sequence of an argument check (`checked`), run in place by the caller or in the check's
worker process, and that worker's side of call/_offload.py: read a request, answer it.

Its imports are what a check needs and no more (no httpx, no document loading, no anyio): the worker
process loads this module only, through the package `__init__`s, which load their names on first use.
tests/call/test_offload.py checks what the worker has loaded.
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from .._errors import ArgumentError, CallError
from ._bindings import BindingPlan, refuse_bound
from ._check import Checker
from ._limits import CallLimits, enforce_limits

Json = Any
KEPT = 64  # compiled checks a worker keeps, least recently used dropped


def checked(
    checker: Checker, bindings: BindingPlan, limits: CallLimits, arguments: Mapping[str, Json]
) -> dict[str, Json]:
    """The arguments, checked, without the nulls strict mode sends (raises CallError). The one sequence
    both an inline check and a worker run."""
    enforce_limits(arguments, limits)
    refuse_bound(arguments, bindings)
    present = checker.drop_nulls(arguments)  # OpenAI strict mode sends null for optional arguments
    checker.check(present)
    return present


def answer(checkers: collections.OrderedDict[int, Checker], request: bytes) -> tuple[Any, ...]:
    token, schema, bindings, limits, values = pickle.loads(request)
    try:
        arguments = pickle.loads(values)
    except Exception:  # a library caller's own objects, of a class this process cannot import
        return ("unreadable",)
    checker = checkers.get(token)
    if checker is None:
        if schema is None:
            return ("unknown",)
        checker = checkers[token] = Checker(schema)
        while len(checkers) > KEPT:
            checkers.popitem(last=False)
    checkers.move_to_end(token)
    try:
        present = checked(checker, bindings, limits, arguments)
    except ArgumentError as error:
        return ("arguments", error.problems, str(error.code))
    except CallError as error:
        return ("refused", error.message, str(error.code))
    except Exception as error:  # a bug: named by its type only (its text may quote a value)
        return ("fault", type(error).__name__)
    return ("ok", None if present == arguments else present)


def serve(fd: int) -> None:
    """The worker's loop: one request, one answer, until the gateway closes its end."""
    connection = Connection(fd)
    checkers: collections.OrderedDict[int, Checker] = collections.OrderedDict()
    while True:
        try:
            request = connection.recv_bytes()
            connection.send_bytes(pickle.dumps(answer(checkers, request), pickle.HIGHEST_PROTOCOL))
        except (EOFError, OSError):  # the gateway closed its end, or is gone
            return
