"""The processes of a cluster the tests run themselves: a Redis and a PostgreSQL of their own (own data
folder, own port: never the machine's services at 5432/6379), Debian's HAProxy running the shipped
config (docs/deployment/haproxy.cfg), and `specbridge serve` instances on fixed ports (so one can be
restarted where the balancer looks for it). Faults are injected by signals to these processes."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.support.required import lacking

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CONFIG = ROOT / "docs" / "deployment" / "haproxy.cfg"
NGINX_CONFIG = ROOT / "docs" / "deployment" / "nginx.conf"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def until(what: str, check: Callable[[], bool], seconds: float = 30.0) -> None:
    """Poll `check` until it holds (a bounded wait, never a fixed sleep); fails naming `what`."""
    ends = time.monotonic() + seconds
    while not check():
        if time.monotonic() > ends:
            raise AssertionError(f"{what}: not within {seconds:g} s")
        time.sleep(0.05)


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def missing() -> str | None:
    """Why the cluster cannot run here, or None."""
    if not os.path.exists(HAPROXY):
        return lacking("haproxy", "not installed (Debian: apt-get install -y haproxy; .ci/run installs it)")
    if not os.path.exists(REDIS_SERVER):
        return lacking("redis-server", "not installed (Debian: apt-get install -y redis-server)")
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"):
        return lacking("postgresql", "no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    return None


class Process:
    """A child process with its output in a file of the folder."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.argv, self.log, self.env = argv, log, env
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env
            )

    def signal(self, number: int) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(number)

    def kill(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        self.wait()

    def wait(self, seconds: float = 30.0) -> int | None:
        return None if self.popen is None else self.popen.wait(seconds)

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""


class OwnRedis(Process):
    """redis-server on a port of its own, without persistence (appendonly no, no snapshots): killed and
    started again, it is empty, as a cache-configured Redis is after a restart."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(folder)]
        argv += ["--appendonly", "no", "--save", "", "--daemonize", "no", "--protected-mode", "no"]
        super().__init__(argv, folder / "redis.log")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        super().start()
        until("redis accepts connections", lambda: _accepts(self.port))


class OwnPostgres:
    """A PostgreSQL in a folder of its own (initdb; as `nobody` when run as root, which initdb refuses),
    on a port of its own."""

    def __init__(self) -> None:
        self.bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]).parent
        self.folder = Path(tempfile.mkdtemp(prefix="specbridge-cluster-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_nobody = os.geteuid() == 0
        if self.as_nobody:
            shutil.chown(self.folder, "nobody", "nogroup")

    def _run(self, *command: str) -> None:
        prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if self.as_nobody else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-N")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        log = str(self.folder / "log")
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            log,
            "-w",
            "-t",
            "60",
            "start",
        )
        until("postgresql accepts connections", lambda: _accepts(self.port), 60)

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def remove(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


class Gateway(Process):
    """`specbridge serve --transport http` on a fixed port."""

    def __init__(self, config: Path, port: int, log: Path) -> None:
        self.port = port
        argv = [sys.executable, "-m", "specbridge", "serve", "--config", str(config)]
        argv += ["--transport", "http", "--port", str(port), "--deadline", "30"]
        super().__init__(argv, log, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        try:
            return httpx.get(self.base + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def start(self) -> None:
        super().start()

    def ready(self, seconds: float = 60.0) -> None:
        def up() -> bool:
            if not self.running:
                raise AssertionError("the gateway ended:\n" + self.output()[-3000:])
            return self.healthy()

        until(f"the gateway on port {self.port} answers /healthz", up, seconds)


class HAProxy(Process):
    """Debian's HAProxy running the shipped config, its ports replaced by the cluster's."""

    def __init__(self, folder: Path, front: int, backends: list[int]) -> None:
        config = folder / "haproxy.cfg"
        config.write_text(shipped(HAPROXY_CONFIG, front, backends), encoding="utf-8")
        self.front = front
        super().__init__([HAPROXY, "-db", "-f", str(config)], folder / "haproxy.log")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.front}"

    def start(self) -> None:
        super().start()
        until("haproxy listens", lambda: _accepts(self.front))


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def shipped(config: Path, front: int, backends: list[int]) -> str:
    """A shipped balancer config with the cluster's ports in place of 8700 (front) and 8701-8703."""
    text = config.read_text(encoding="utf-8")
    for port_shipped, port in zip((8700, 8701, 8702, 8703), (front, *backends), strict=True):
        assert f"127.0.0.1:{port_shipped}" in text, f"{config} no longer names 127.0.0.1:{port_shipped}"
        text = text.replace(f"127.0.0.1:{port_shipped}", f"127.0.0.1:{port}")
    return text


class Nginx(Process):
    """Debian's nginx running the shipped config (docs/deployment/nginx.conf), in the foreground, with
    its pid file, logs and temporary files in the folder."""

    def __init__(self, folder: Path, front: int, backends: list[int]) -> None:
        prefix = folder / "nginx"
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        config = prefix / "nginx.conf"
        config.write_text(shipped(NGINX_CONFIG, front, backends), encoding="utf-8")
        self.front = front
        argv = [NGINX, "-p", str(prefix), "-c", str(config), "-e", str(prefix / "logs" / "error.log")]
        super().__init__([*argv, "-g", f"daemon off; pid {prefix / 'nginx.pid'};"], folder / "nginx.log")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.front}"

    def start(self) -> None:
        super().start()
        until("nginx listens", lambda: _accepts(self.front))

    def kill(self) -> None:
        """SIGTERM: the master stops its workers first (SIGKILL would leave them listening)."""
        self.signal(signal.SIGTERM)
        try:
            self.wait(30)
        except subprocess.TimeoutExpired:
            super().kill()
