"""The cluster suite's servers, started once per run and only when a cluster test is selected
(`pytest -m cluster`, `make cluster`): the tests' own Redis and PostgreSQL, a loopback upstream, and
one cluster (three gateways behind HAProxy) per store. A test that injects a fault puts things back
before it ends, so the next one finds the cluster whole."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cluster._cluster import Cluster
from tests.cluster._servers import OwnPostgres, OwnRedis, missing
from tests.support.upstream import Upstream

STORE_OPTIONS = "namespace=cluster&timeout=2s&connections=4"


@pytest.fixture(scope="session")
def cluster_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    return tmp_path_factory.mktemp("cluster")


@pytest.fixture(scope="session")
def own_redis(cluster_folder: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(cluster_folder)
    server.start()
    yield server
    server.kill()


@pytest.fixture(scope="session")
def own_postgres(cluster_folder: Path) -> Iterator[OwnPostgres]:
    server = OwnPostgres()
    server.init()
    server.start()
    yield server
    server.remove()


@pytest.fixture(scope="session")
def cluster_upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


@pytest.fixture(scope="session")
def clusters(
    cluster_folder: Path, cluster_upstream: Upstream, own_redis: OwnRedis, own_postgres: OwnPostgres
) -> Iterator[Callable[[str], Cluster]]:
    """The cluster on `postgresql` or `redis`, started the first time a test asks for it."""
    started: dict[str, Cluster] = {}

    def on(backend: str) -> Cluster:
        if backend not in started:
            server = own_redis if backend == "redis" else own_postgres
            folder = cluster_folder / backend
            folder.mkdir()
            started[backend] = Cluster.start(
                backend, folder, cluster_upstream, f"{server.url}?{STORE_OPTIONS}"
            )
        return started[backend]

    yield on
    for cluster in started.values():
        cluster.stop()


@pytest.fixture(params=["postgresql", "redis"])
def cluster(request: pytest.FixtureRequest, clusters: Callable[[str], Cluster]) -> Cluster:
    return clusters(request.param)


@pytest.fixture
def redis_cluster(clusters: Callable[[str], Cluster]) -> Cluster:
    return clusters("redis")
