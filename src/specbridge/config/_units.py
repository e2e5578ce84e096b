"""The units the config's values are written in: durations (`90s`, `10m`, `24h`, `7d`) and sizes
(`512kB`, `25MB`, `1GiB`)."""

from __future__ import annotations

import re

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)\s*")


def parse_duration(value: float | str) -> float:
    """A duration as the schema accepts it: a number of seconds, or `90s`, `10m`, `24h`, `7d`."""
    if isinstance(value, int | float):
        return float(value)
    found = _DURATION.fullmatch(value)
    if found is None:
        raise ValueError(f"not a duration: {value!r}")
    return float(found.group(1)) * _UNITS[found.group(2)]


_SIZE = re.compile(r"\s*([0-9]+)\s*([kKmMgG]i?[bB]|[bB])?\s*")
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
}


def parse_size(value: int | str) -> int:
    """A size as the schema accepts it: a number of bytes, or `512kB`, `25MB`, `1GiB` (kB = 1000)."""
    if isinstance(value, int):
        return value
    found = _SIZE.fullmatch(value)
    if found is None:
        raise ValueError(f"not a size: {value!r}")
    size = int(found.group(1)) * _SIZE_UNITS[(found.group(2) or "").lower()]
    if size < 1:
        raise ValueError(f"not a size of at least 1 byte: {value!r}")
    return size
