"""The balancer configs docs/deployment.md shows are the files shipped beside it (which the cluster
suite runs, tests/cluster), and each is valid for its balancer: `haproxy -c` and `nginx -t` where
Debian's packages are installed (.ci/run installs them), skipped saying so where they are not."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.required import lacking

from . import _reading

DOCS = _reading.ROOT / "docs"
SHIPPED = {"haproxy": DOCS / "deployment" / "haproxy.cfg", "nginx": DOCS / "deployment" / "nginx.conf"}


@pytest.mark.parametrize("balancer", sorted(SHIPPED))
def test_the_page_shows_the_shipped_config_as_it_is(balancer: str) -> None:
    blocks = [block for block in _reading.blocks(DOCS / "deployment.md") if block.info == balancer]
    assert len(blocks) == 1, f"docs/deployment.md: one ```{balancer} block"
    shown = "".join(line + "\n" for line in blocks[0].lines)
    assert shown == SHIPPED[balancer].read_text(encoding="utf-8"), f"{SHIPPED[balancer]} and the page differ"


def test_the_shipped_haproxy_config_is_valid() -> None:
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        pytest.skip(lacking("haproxy", "not installed (Debian: apt-get install -y haproxy)"))
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(SHIPPED["haproxy"])], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_shipped_nginx_config_is_valid(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip(lacking("nginx", "not installed (Debian: apt-get install -y nginx)"))
    (tmp_path / "logs").mkdir()
    argv = [
        nginx,
        "-t",
        "-p",
        str(tmp_path),
        "-c",
        str(SHIPPED["nginx"]),
        "-e",
        str(tmp_path / "logs" / "error.log"),
    ]
    checked = subprocess.run(
        [*argv, "-g", f"pid {tmp_path / 'nginx.pid'};"], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
