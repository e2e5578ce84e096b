"""How soon the PostgreSQL store answers again after the database was away, on a PostgreSQL of its own.

    .venv/bin/python bench/store_outage.py [--outage 150 --outage 60] [--psycopg-default]

Starts its own PostgreSQL (initdb into a temporary folder, its own port, as `nobody` when run as root;
the machine's server is never touched), opens the store on it with the default timeout, and keeps
asking it for an approval every 0.2 s (a gateway under light load). For each outage it stops the server
(`pg_ctl stop -m fast`), waits that many seconds, starts it again (`pg_ctl start -w`: it accepts
connections when that returns) and prints how long after that the first store step succeeded, and how
long the steps made during the outage took to fail (each must fail within the store's timeout).
`--psycopg-default` measures psycopg_pool's own reconnection policy instead of the store's (a
reconnection that retries for 5 minutes, its wait doubling), for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from specbridge.store import StoreError, open_store
from specbridge.store import _postgres as postgres_store


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise SystemExit("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class OwnPostgres:
    """A PostgreSQL server in a folder of its own, on a port of its own."""

    def __init__(self, folder: Path) -> None:
        self.bin = _binaries()
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.as_nobody = os.geteuid() == 0  # initdb refuses to run as root
        if self.as_nobody:
            shutil.chown(folder, "nobody", "nogroup")

    def _run(self, *command: str) -> None:
        prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if self.as_nobody else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


async def measure(server: OwnPostgres, outages: list[float]) -> None:
    async with open_store(server.url) as store:
        failures: list[float] = []
        successes: list[float] = []
        stop = asyncio.Event()

        async def load() -> None:
            while not stop.is_set():
                began = time.monotonic()
                try:
                    await store.get_approval("a1")
                    successes.append(time.monotonic())
                except StoreError:
                    failures.append(time.monotonic() - began)
                await asyncio.sleep(0.2)

        loader = asyncio.create_task(load())
        try:
            await asyncio.sleep(1)
            for outage in outages:
                failures.clear()
                await asyncio.to_thread(server.stop)
                await asyncio.sleep(outage)
                await asyncio.to_thread(server.start)
                up = time.monotonic()
                while not successes or successes[-1] < up:
                    await asyncio.sleep(0.05)
                    if time.monotonic() - up > 600:
                        raise SystemExit("the store did not answer within 10 minutes of the database")
                back = min(at for at in successes if at >= up) - up
                slowest = max(failures, default=0.0)
                print(
                    f"outage {outage:>5.0f} s: first step {back:5.2f} s after the database accepted "
                    f"connections; {len(failures)} steps failed during it, the slowest in {slowest:.2f} s"
                )
        finally:
            stop.set()
            await loader


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--outage", type=float, action="append", help="seconds the database is away (repeat)")
    parser.add_argument(
        "--psycopg-default", action="store_true", help="psycopg_pool's own reconnection policy"
    )
    arguments = parser.parse_args()
    logging.getLogger("psycopg").setLevel(logging.ERROR)  # one warning per failed reconnection otherwise
    if arguments.psycopg_default:
        postgres_store.RECONNECT = 300.0  # psycopg_pool's default reconnect_timeout
    with tempfile.TemporaryDirectory(prefix="specbridge-pg-") as folder:
        server = OwnPostgres(Path(folder))
        server.init()
        server.start()
        try:
            policy = "psycopg_pool's default" if arguments.psycopg_default else "the store's"
            print(f"PostgreSQL on 127.0.0.1:{server.port} ({server.bin}), {policy} reconnection")
            asyncio.run(measure(server, arguments.outage or [150.0, 60.0]))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
