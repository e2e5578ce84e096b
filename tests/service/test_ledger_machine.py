"""The promise of the ledger (service/_ledger.py), checked by machine: a hypothesis state machine drives the
call service on a real store (SQLite, PostgreSQL, Redis), a real loopback API that counts every request
and a loopback token endpoint (`oauth2_client_credentials`), with rules for what agents and people do:
two clients calling with and without a key, with the same and other arguments, a tool that needs
approval and one under a rate limit, answers (approve, reject, or let expire: a movable clock), the
gateway's sender sweeping, `get_call_result`, the token endpoint down and up, a file gone, a restart
(a new ledger and service on the same store) and a store outage. After every step:

- each logical call reaches the API at most once: per key within `idempotency.ttl`, per approval;
- no answer says "nothing was sent" for a call that was sent, nor gives a result for one that was not;
- and at the end every approval is done, failed, rejected, expired or outcome unknown.

A failure prints the example's blob to reproduce it (`print_blob`). Bounded for CI: `EXAMPLES` examples
of at most `STEPS` steps per store.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import tempfile
from collections import defaultdict
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import psycopg
import pytest
import redis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from specbridge.access import key_sha256
from specbridge.call import Caller, CallResult
from specbridge.config import config_from_data
from specbridge.document import load_document
from specbridge.files import Files
from specbridge.service import CallRequest, CallService, Deadline, Ledger, key_plan, store_key
from specbridge.store import Status, Store, StoreError
from specbridge.tools import convert
from tests.support.oauth_api import STORE_KEY
from tests.support.stores import POSTGRES, REDIS, refused
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

EXAMPLES, STEPS = 12, 30
DEADLINE = 5.0  # each call's: a wait inside it (a token another instance fetches) ends before it
T = TypeVar("T")
TTL, EXPIRE, WINDOW = 86400.0, 3600.0, 900.0
SENT = frozenset({Status.EXECUTING, Status.DONE, Status.FAILED, Status.OUTCOME_UNKNOWN})
SPEC = """\
openapi: 3.1.0
info: {title: Ledger machine, version: '1'}
paths:
  /refunds:
    post:
      operationId: refundOrder
      parameters:
        - {name: Idempotency-Key, in: header, required: false, schema: {type: string}}
        - {name: X-Client, in: header, required: false, schema: {type: string}}
      requestBody: {required: true, content: {application/json: {schema: {type: object, required: [order],
        properties: {order: {type: string}}}}}}
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /notes:
    post:
      operationId: addNote
      parameters:
        - {name: Idempotency-Key, in: header, required: false, schema: {type: string}}
        - {name: X-Client, in: header, required: false, schema: {type: string}}
      requestBody: {required: true, content: {application/json: {schema: {type: object, required: [text],
        properties: {text: {type: string}}}}}}
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /blobs/{name}:
    put:
      operationId: putBlob
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
        - {name: X-Client, in: header, required: false, schema: {type: string}}
      requestBody: {required: true, content: {application/octet-stream: {schema: {type: string, format: binary}}}}
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
"""
CLIENTS = ("c1", "c2")
ARGUMENT = {"refundOrder": "order", "addNote": "text"}
Call = tuple[str, str, str, str | None]  # client, tool, argument value, key: one logical call


class Outage:
    """A store that stops answering partway: every operation of one store instance after the first
    `after` raises `StoreError` (a connection lost mid-call), until `up`."""

    NAMES = tuple(sorted(Store.__abstractmethods__ - {"start", "close"}))

    @staticmethod
    def down(store: Store, after: int) -> None:
        left = [after]

        def failing(name: str) -> Any:
            real = getattr(type(store), name)

            async def maybe(*args: Any, **kwargs: Any) -> Any:
                left[0] -= 1
                if left[0] < 0:
                    raise StoreError("the store cannot be reached (the machine's outage)")
                return await real(store, *args, **kwargs)

            return maybe

        for name in Outage.NAMES:
            setattr(store, name, failing(name))

    @staticmethod
    def up(store: Store) -> None:
        for name in Outage.NAMES:
            vars(store).pop(name, None)


def _namespace(backend: str, folder: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{folder / 'state.db'}"
    name = f"m_{secrets.token_hex(6)}"
    return f"{POSTGRES if backend == 'postgresql' else REDIS}?namespace={name}"


def _drop(url: str) -> None:
    base, _, name = url.partition("?namespace=")
    if url.startswith("postgresql"):
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'.encode())
    elif url.startswith("redis"):
        client = redis.Redis.from_url(base)
        keys = list(client.scan_iter(match=f"{name}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


class LedgerMachine(RuleBasedStateMachine):
    backend: ClassVar[str] = "sqlite"

    def __init__(self) -> None:
        super().__init__()
        os.environ["SPECBRIDGE_TEST_STORE_KEY"] = STORE_KEY
        os.environ["LEDGER_MACHINE_SECRET"] = "gw-secret"
        self.runner = asyncio.Runner()
        self.folder = Path(tempfile.mkdtemp(prefix="ledger-machine-"))
        self.upstream = Upstream().__enter__()
        self.token_down = False
        self.upstream.route("/token", self._token)
        for path in ("/refunds", "/notes"):
            self.upstream.route(path, json_response({"ok": True}))
        self.upstream.route("/blobs/b", json_response({"stored": True}))
        self.url = _namespace(self.backend, self.folder)
        self.now = 1_800_000_000.0
        self.config = self._config()
        self.api = self.config.apis["shop"]
        self.toolset = convert(load_document(self.api.spec))
        self.caller = Caller(self.api, self.toolset, check_workers=False)
        self.down = False
        self.sends: dict[Call, list[float]] = defaultdict(list)  # every request the API got, by call
        self.seen = 0  # upstream requests attributed so far
        self.keys: dict[str, tuple[str, str | None]] = {}  # the API's Idempotency-Key -> (client, key)
        self.approvals: dict[str, set[str]] = defaultdict(set)  # approval ids each client was told
        self.files: dict[str, str] = {}  # client -> its file id
        self._start()

    # -- the parts ---------------------------------------------------------------------------------

    def _token(self, request: RecordedRequest) -> Reply:
        if self.token_down:
            return json_response({"error": "temporarily_unavailable"}, status=503)
        return json_response({"access_token": "at", "token_type": "Bearer", "expires_in": 3600})

    def _config(self) -> Any:
        (self.folder / "shop.yaml").write_text(SPEC, encoding="utf-8")
        auth = {"type": "oauth2_client_credentials", "token_url": self.upstream.url + "/token",
                "client_id": "gw", "client_secret": "env:LEDGER_MACHINE_SECRET"}  # fmt: skip
        clients = {
            name: {
                "key_sha256": key_sha256(f"sbk_{name}-key"),
                "apis": ["shop"],
                "bindings": {"shop": {"header.X-Client": name}},
            }
            for name in CLIENTS
        }
        data = {
            "apis": {
                "shop": {
                    "spec": str(self.folder / "shop.yaml"),
                    "base_url": self.upstream.url,
                    "egress": {"allow": [self.upstream.address]},
                    "timeout": 10,
                    "auth": auth,
                    "tools": {"refundOrder": {"requires_approval": True}},
                }
            },
            "clients": clients,
            "store": self.url,
            "store_key": "env:SPECBRIDGE_TEST_STORE_KEY",
            "approvals": {"wait": 0, "expire": EXPIRE, "repeat_window": WINDOW},
            "limits": {"per_tool": {"addNote": "2/hour"}},
        }
        return config_from_data(data, source="specbridge.yaml", base_dir=self.folder)

    def _start(self) -> None:
        self.ledger = Ledger(lambda: self.config, clock=lambda: self.now)
        files = Files(self.ledger.open, lambda: self.config.files)
        self.service = CallService(
            self.ledger, files, lambda: self.config, deadline=30, clock=lambda: self.now
        )
        self.run(self.ledger.open())

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.runner.run(asyncio.wait_for(work, 60))

    def teardown(self) -> None:
        if os.environ.get("LEDGER_MACHINE_TALLY"):
            every = self.run(self.ledger.desk.list(None, 1000))
            print("TALLY", self.backend, sum(map(len, self.sends.values())), len(every),
                  sorted({str(a.status) for a in every}))  # fmt: skip
        try:
            self._every_approval_ends()
        finally:
            with contextlib.suppress(Exception):
                self.run(self.service.aclose())
                self.run(self.ledger.aclose())
            with contextlib.suppress(Exception):
                self.run(self.caller.aclose())
            self.runner.close()
            self.upstream.__exit__(None, None, None)
            _drop(self.url)

    # -- what the API got --------------------------------------------------------------------------

    def _attribute(self) -> list[Call]:
        """The requests the API got since the last look, each as the logical call it is."""
        found = []
        for request in self.upstream.requests[self.seen :]:
            if request.path == "/token":
                continue
            client = request.headers.get("x-client", "")
            tool = {"/refunds": "refundOrder", "/notes": "addNote"}.get(request.path, "putBlob")
            value = "" if tool == "putBlob" else str(json.loads(request.body)[ARGUMENT[tool]])
            derived = request.headers.get("idempotency-key")
            key = self.keys[derived][1] if derived is not None else None
            found.append((client, tool, value, key))
            self.sends[(client, tool, value, key)].append(self.now)
        self.seen = len(self.upstream.requests)
        return found

    def _derived(self, client: str, tool: str, key: str) -> None:
        plan = key_plan(self.api, self.toolset.get(tool))  # type: ignore[arg-type]
        assert plan is not None
        for value in plan.binding(("shop", client, tool), key).values():
            self.keys[value] = (client, key)

    def _sent_within_ttl(self, call: Call) -> bool:
        return any(self.now - when < TTL for when in self.sends[call])

    def _check_answer(self, call: Call, result: CallResult, made: list[Call]) -> None:
        """An answer's truth about its call: "nothing was sent" only when nothing was; a result only
        when it was sent."""
        tool, key = call[1], call[3]
        mine = [one for one in made if one == call]
        assert len(mine) <= 1, f"one call made {len(mine)} requests: {call}"
        says_nothing = "nothing was sent" in result.text.lower()
        if says_nothing:
            assert not mine, f"said nothing was sent, and sent it: {call} {result.text}"
            if key is not None:
                assert not self._sent_within_ttl(call), f"said nothing was sent of a sent key: {result.text}"
            for approval_id in self._approval_ids(result.text) if not self.down else ():
                found = self.run(self.ledger.desk.get(approval_id))
                assert found.status not in SENT, f"said nothing was sent of approval {approval_id}"
        if result.status is not None and key is None and tool != "refundOrder":  # a call of its own
            assert mine, f"a result for a call never sent: {call} {result.text}"
        elif result.status is not None:  # an answer of the API: it was sent, now or before
            assert mine or self.sends[call], f"a result for a call never sent: {call} {result.text}"

    def _approval_ids(self, text: str) -> list[str]:
        return [word.strip("().,") for word in text.split() if len(word.strip("().,")) == 32 and
                all(c in "0123456789abcdef" for c in word.strip("().,"))]  # fmt: skip

    # -- rules: what agents do -----------------------------------------------------------------------

    @rule(client=st.sampled_from(CLIENTS), tool=st.sampled_from(["refundOrder", "addNote"]),
          value=st.sampled_from(["a", "b"]), key=st.sampled_from([None, "k1", "k2"]))  # fmt: skip
    def agent_calls(self, client: str, tool: str, value: str, key: str | None) -> None:
        arguments: dict[str, Any] = {ARGUMENT[tool]: value}
        if key is not None:
            arguments["idempotency_key"] = key
            self._derived(client, tool, key)
        result = self.run(self.service.call(self._request(client, tool, arguments)))
        assert isinstance(result, CallResult)
        self.approvals[client].update(self._approval_ids(result.text))
        self._check_answer((client, tool, value, key), result, self._attribute())

    def _request(self, client: str, tool: str, arguments: dict[str, Any]) -> CallRequest:
        found = self.toolset.get(tool)
        assert found is not None
        return CallRequest(self.api, self.caller, found, self.config.clients[client], arguments,
                           Deadline.after(DEADLINE))  # fmt: skip

    @rule(client=st.sampled_from(CLIENTS))
    def agent_uploads_a_file(self, client: str) -> None:
        kept = self.run(self.service.files.put(client, b"bytes", "application/octet-stream", "a.bin"))
        self.files[client] = kept.id

    @precondition(lambda self: bool(self.files))
    @rule(data=st.data())
    def agent_sends_its_file(self, data: st.DataObject) -> None:
        client = data.draw(st.sampled_from(sorted(self.files)))
        arguments = {"name": "b", "body": {"file_id": self.files[client]}}
        result = self.run(self.service.call(self._request(client, "putBlob", arguments)))
        assert isinstance(result, CallResult)
        self._check_answer((client, "putBlob", "", None), result, self._attribute())

    @precondition(lambda self: bool(self.files))
    @rule(data=st.data())
    def a_file_expires(self, data: st.DataObject) -> None:
        client = data.draw(st.sampled_from(sorted(self.files)))
        self.run(self.service.files.delete(client, self.files[client]))

    @precondition(lambda self: any(self.approvals.values()))
    @rule(data=st.data())
    def agent_asks_get_call_result(self, data: st.DataObject) -> None:
        client = data.draw(st.sampled_from(sorted(name for name, ids in self.approvals.items() if ids)))
        approval_id = data.draw(st.sampled_from(sorted(self.approvals[client])))
        result = self.run(
            self.service.result(self.api, client, {"call_id": approval_id}, Deadline.after(DEADLINE))
        )
        made = self._attribute()
        assert not made, "get_call_result sent something"
        if "nothing was sent" in result.text.lower():
            assert self.run(self.ledger.desk.get(approval_id)).status not in SENT

    # -- rules: what people, the gateway and the world do ------------------------------------------

    @rule(data=st.data(), approve=st.sampled_from([True, True, True, False]))
    def a_person_answers(self, data: st.DataObject, approve: bool) -> None:
        pending = self.run(self.ledger.desk.list(Status.PENDING, 100))
        if not pending:
            return
        chosen = data.draw(st.sampled_from(sorted(one.id for one in pending)))
        with contextlib.suppress(Exception):  # expired meanwhile, or answered: the desk says so
            if approve:
                self.run(self.ledger.desk.approve(chosen, "alice"))
            else:
                self.run(self.ledger.desk.reject(chosen, "alice", "not now"))

    @rule()
    def the_sender_sweeps(self) -> None:
        with contextlib.suppress(StoreError):
            self.run(self.service.sender.sweep(lambda: {"shop": self}))
        self._attribute()

    @rule(seconds=st.sampled_from([30.0, 600.0, 1200.0, 5400.0]))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds

    @rule()
    def the_token_endpoint_flips(self) -> None:
        self.token_down = not self.token_down
        self.now += 3600  # the token held ran out meanwhile

    @rule()
    def the_gateway_restarts(self) -> None:
        self.run(self.service.aclose())
        self.run(self.ledger.aclose())
        self._start()

    @rule(after=st.integers(0, 8), client=st.sampled_from(CLIENTS), tool=st.sampled_from(["refundOrder", "addNote"]),
          value=st.sampled_from(["a", "b"]), key=st.sampled_from([None, "k1"]))  # fmt: skip
    def agent_calls_while_the_store_fails(
        self, after: int, client: str, tool: str, value: str, key: str | None
    ) -> None:
        with self.outage(after):
            self.agent_calls(client, tool, value, key)

    @rule(after=st.integers(0, 8))
    def the_sender_sweeps_while_the_store_fails(self, after: int) -> None:
        with self.outage(after):
            self.the_sender_sweeps()

    @contextlib.contextmanager
    def outage(self, after: int) -> Iterator[None]:
        store = self.ledger.store
        assert store is not None
        Outage.down(store, after)
        self.down = True
        try:
            yield
        finally:
            Outage.up(store)
            self.down = False

    # -- the promise -------------------------------------------------------------------------------

    @invariant()
    def each_logical_call_reaches_the_api_at_most_once(self) -> None:
        for call, times in self.sends.items():
            if call[3] is not None:  # per key, within its ttl
                ordered = sorted(times)
                assert all(b - a >= TTL for a, b in itertools.pairwise(ordered)), call
        every = self.run(self.ledger.desk.list(None, 1000))
        for call, times in self.sends.items():
            client, tool, value, key = call
            if tool != "refundOrder":
                continue
            name = store_key(("shop", client, tool), key) if key is not None else None
            mine = [a for a in every if a.client == client and a.arguments == {ARGUMENT[tool]: value}
                    and a.idempotency_key == name]  # fmt: skip
            may = [a for a in mine if a.status in SENT]
            were = [a for a in mine if isinstance(a.result, dict) and a.result.get("status") is not None]
            assert len(were) <= len(times) <= len(may), (call, len(times), [a.status for a in mine])

    def _every_approval_ends(self) -> None:
        self.token_down = False
        self.now += EXPIRE + 3600  # past every expiry and every lease
        self.the_gateway_restarts()  # a sender that has not put any approval off for later
        self.run(self.service.sender.sweep(lambda: {"shop": self}))
        self._attribute()
        self.each_logical_call_reaches_the_api_at_most_once()
        for approval in self.run(self.ledger.desk.list(None, 1000)):
            final = self.run(self.ledger.desk.get(approval.id))
            assert final.status not in (Status.PENDING, Status.EXECUTING), (final.id, final.status)
            if final.status is Status.APPROVED:  # a person approved it and nothing could send it?
                pytest.fail(f"approval {final.id} approved and never sent")


def machine(backend: str) -> type[LedgerMachine]:
    return type(f"LedgerMachine_{backend}", (LedgerMachine,), {"backend": backend})


SETTINGS = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow], database=None)  # fmt: skip
MACHINES = {backend: machine(backend) for backend in ("sqlite", "postgresql", "redis")}


@pytest.mark.parametrize("backend", sorted(MACHINES))
def test_every_way_into_the_api_keeps_the_promise(backend: str) -> None:
    url = {"postgresql": POSTGRES, "redis": REDIS}.get(backend)
    reason = refused(url) if url is not None else None
    if reason:
        pytest.skip(reason)
    MACHINES[backend].TestCase.settings = SETTINGS
    MACHINES[backend].TestCase().runTest()
