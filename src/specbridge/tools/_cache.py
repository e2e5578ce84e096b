"""The conversion of an unchanged document, kept on disk between starts.

`ConversionCache.convert(path, options)` answers what `convert(load_document(path), options)` would,
from a file in the cache folder when it was made from the same bytes: the document's own and those of
every file its `$ref`s read (a file that could not be read counts as absent, so one that appears makes
a new conversion), the same conversion options and `$ref` folders, and the same specbridge (its version,
the Python that runs it, and the size and time of each source file of the conversion, so a changed
checkout never reads an old result). Anything else (a file that cannot be read, a torn or foreign
entry) is a miss: the document is converted as usual and the entry written again.

Safe to delete at any time. One entry per document path and options (a changed document replaces its
entry), written to a temporary file and renamed, so a reader never sees half of one. An entry is a
pickle, which runs code when read: the folder is made private (0700), and an entry is read only when
it belongs to this user in a folder nobody else may write to; otherwise the cache is not used.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import logging
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from .._files import MAX_DOCUMENT_BYTES, read_bounded
from .._logging import log_event
from .._version import __version__
from ..document import ApiDocument, decode_document, parse_document, read_document_file
from ._compact import compacted
from ._model import ConvertOptions, ToolSet

CACHE_FORMAT = 1  # raised whenever what an entry holds changes shape
FOLDER_NAME = "conversions"
T = TypeVar("T")


def default_cache_folder() -> Path:
    """`$XDG_CACHE_HOME/specbridge/conversions`, else `~/.cache/specbridge/conversions`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "specbridge" / FOLDER_NAME


@functools.cache
def code_fingerprint() -> str:
    """What a conversion's result depends on besides its input: specbridge's version, the Python, and
    each source file of `document/`, `tools/` and the ground modules (size and modification time)."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{CACHE_FORMAT}\0{__version__}\0{sys.version}".encode())
    files = [*package.glob("_*.py"), *package.glob("document/*.py"), *package.glob("tools/*.py")]
    for path in sorted(files):
        try:
            status = path.stat()
        except OSError:
            continue
        digest.update(f"{path.relative_to(package)}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    """What `document.FileLoader` records for `path`: the SHA-256 of its bytes, "" when unreadable."""
    try:
        return hashlib.sha256(read_bounded(path, MAX_DOCUMENT_BYTES)).hexdigest()
    except Exception:
        return ""


class ConversionCache:
    """Conversions of document files, kept in `folder` (None: none kept; every call converts)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._refused = False  # the folder is not private: said once, then not used
        # `convert(keep=True)`'s (key, tools, the digests of its entry still to write), taken once
        self._kept: tuple[str, ToolSet, dict[str, str] | None] | None = None

    def convert(
        self,
        path: str,
        options: ConvertOptions,
        *,
        ref_dirs: Sequence[str | os.PathLike[str]] = (),
        keep: bool = False,
    ) -> ToolSet:
        """The tools of the document file at `path`, as `convert` makes them (DocumentError as
        `load_document` raises it). `keep`: also kept in memory for the next call with the same file
        and options, once (the stdio front's conversion, which the gateway takes over); its entry is
        written by that call, so that the front answers first."""
        raw = read_document_file(path)
        base = str(Path(path).resolve())
        dirs = tuple(str(Path(folder).resolve()) for folder in ref_dirs)
        slot = hashlib.sha256(repr((path, base, dirs, options)).encode()).hexdigest()[:32]
        key = hashlib.sha256(f"{code_fingerprint()}\0{slot}\0".encode() + raw).hexdigest()
        kept, self._kept = self._kept, None
        if kept is not None and kept[0] == key:
            return self._write(slot, key, kept[2], kept[1]) if kept[2] is not None else kept[1]
        toolset = self._read(slot, key)
        if toolset is not None:
            if keep:
                self._kept = (key, toolset, None)
            return toolset
        from ._convert import convert  # only now: a found conversion never loads the conversion itself

        document, toolset = _without_collector(
            lambda: _parsed_and_converted(raw, path, base, dirs, options, convert)
        )
        if not any(note.rule == "ref-unresolved" for note in document.notes):
            # the text serves only positions in messages about the document (`specbridge serve` logs
            # the parameters an unresolvable `$ref` dropped, with their lines): not kept otherwise
            toolset = replace(toolset, document=replace(document, text=""))
        if keep:
            self._kept = (key, toolset, document.resolver.file_digests())
            return toolset
        return self._write(slot, key, document.resolver.file_digests(), toolset)

    def private(self) -> bool:
        """Whether entries in the folder can be trusted: it and they are this user's, and nobody else
        may write to the folder (always true where there are no such owners: Windows)."""
        if self.folder is None or self._refused:
            return False
        getuid = getattr(os, "getuid", None)
        if getuid is None:
            return True
        try:
            status = self.folder.stat()
        except FileNotFoundError:
            return True  # made private when the first entry is written
        except OSError:
            return False
        if status.st_uid == getuid() and not status.st_mode & 0o022:
            return True
        self._refused = True
        log_event(
            "conversion cache not used: its folder is not private to this user",
            level=logging.WARNING,
            folder=str(self.folder),
        )
        return False

    def _entry(self, slot: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{slot}.pickle"

    def _read(self, slot: str, key: str) -> ToolSet | None:
        if not self.private():
            return None
        entry = self._entry(slot)
        try:
            with entry.open("rb") as handle:
                getuid = getattr(os, "getuid", None)
                if getuid is not None and os.fstat(handle.fileno()).st_uid != getuid():
                    return None
                if handle.read(len(key)) != key.encode():
                    return None  # another document, options or specbridge: not even unpickled
                loaded = _unpickle(handle.read())
        except Exception:  # absent, torn, or from something else: converted again
            return None
        if not (isinstance(loaded, tuple) and len(loaded) == 2):
            return None
        digests, toolset = loaded
        if not isinstance(toolset, ToolSet) or not isinstance(digests, dict):
            return None
        if any(_file_digest(path) != digest for path, digest in digests.items()):
            return None  # a `$ref`ed file changed, appeared or went away
        return toolset

    def _write(self, slot: str, key: str, digests: dict[str, str], toolset: ToolSet) -> ToolSet:
        """Writes the entry of `toolset`, made compact (`_compact`); answers what was written, so that
        a first start serves what the starts after it read (or `toolset` when nothing is kept)."""
        if self.folder is None or not self.private():
            return toolset
        toolset = _without_collector(lambda: compacted(toolset))
        partial = self.folder / f"{slot}.{os.getpid()}.tmp"
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with partial.open("wb") as handle:
                handle.write(key.encode())
                pickle.dump((digests, toolset), handle, protocol=pickle.HIGHEST_PROTOCOL)
            partial.replace(self._entry(slot))
        except Exception:  # a full or read-only disk costs the next start the same work again
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
        return toolset


def _parsed_and_converted(
    raw: bytes,
    path: str,
    base: str,
    dirs: tuple[str, ...],
    options: ConvertOptions,
    convert: Callable[[ApiDocument, ConvertOptions], ToolSet],
) -> tuple[ApiDocument, ToolSet]:
    document = parse_document(decode_document(raw, path), source=path, base=base, ref_dirs=dirs)
    return document, convert(document, options)


def _unpickle(data: bytes) -> Any:
    return _without_collector(lambda: pickle.loads(data))


def _without_collector(make: Callable[[], T]) -> T:
    """`make()` without the cyclic collector's passes over the young objects it makes (a tenth of the
    time of unpickling a large document's conversion, a fifth of converting it): they are nearly all
    alive afterwards anyway."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return make()
    finally:
        if enabled:
            gc.enable()
