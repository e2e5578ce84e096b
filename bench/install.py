"""What installing specbridge costs: installed size and package count of each form, in clean venvs.

    .venv/bin/python bench/install.py [--also onnxruntime fastembed]

Builds this checkout's wheel, then for each form (`specbridge`, `specbridge[gateway]`,
`specbridge[semantic]`) makes a clean venv, installs the wheel with that extra (packages from the
machine's pip configuration, its cache first) and measures site-packages without pip and setuptools.
`--also PACKAGE…` measures what each named package would add on top of `[gateway]` (the inference
runtimes the semantic extra could have used instead of tokenizers + numpy).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLING = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth", "__pycache__")


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def measure(home: Path) -> tuple[int, int, list[str]]:
    [site] = (home / "lib").glob("python3*/site-packages")
    entries = [entry for entry in site.iterdir() if not entry.name.startswith(TOOLING)]
    packages = sorted(entry.name.split("-")[0] for entry in entries if entry.name.endswith(".dist-info"))
    return sum(size(entry) for entry in entries), len(packages), packages


def install(home: Path, *requirements: str) -> None:
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    subprocess.run(
        [
            str(home / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            *requirements,
        ],
        check=True,
        timeout=1800,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--also", nargs="*", default=[], help="packages to measure on top of [gateway]")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="specbridge-install-") as scratch:
        work = Path(scratch)
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(work), str(ROOT)],
            check=True,
            capture_output=True,
            timeout=600,
        )
        [wheel] = work.glob("*.whl")
        print("| install | packages | installed MB | what |")
        print("|---|---:|---:|---|")
        sizes: dict[str, int] = {}
        for extra in ("", "[gateway]", "[semantic]"):
            home = work / f"venv{extra.strip('[]') or '-light'}"
            install(home, f"{wheel}{extra}")
            total, count, names = measure(home)
            sizes[extra] = total
            shown = ", ".join(names) if count <= 15 else f"{', '.join(names[:12])}, …"
            print(f"| specbridge{extra} | {count} | {total / 2**20:.1f} | {shown} |", flush=True)
        for package in options.also:
            home = work / f"venv-{package}"
            install(home, f"{wheel}[gateway]", package)
            total, count, _ = measure(home)
            added = (total - sizes["[gateway]"]) / 2**20
            print(f"| specbridge[gateway] + {package} | {count} | {total / 2**20:.1f} | +{added:.1f} MB |")


if __name__ == "__main__":
    main()
