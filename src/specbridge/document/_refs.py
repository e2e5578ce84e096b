"""`$ref` resolution: local pointers, relative files, refs inside refs. Remote URLs are never fetched
from a document read from a file; a document fetched from a URL has its `$ref`s to the same origin
fetched (by the loader it was given, under the same egress rules and within the one budget of time and
size the document and its refs share, `FetchBudget`) and others refused."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from .._errors import DocumentError, ErrorCode
from .pointer import walk_pointer

MAX_REF_CHAIN = 64


@dataclass(frozen=True, slots=True)
class Target:
    base: str  # the file the target lives in
    pointer: str  # JSON pointer inside that file
    value: Any

    @property
    def key(self) -> str:
        return f"{self.base}#{self.pointer}"


class UnresolvedRef(Exception):
    """A `$ref` that cannot be followed: remote, missing file, bad pointer, or a ref-to-ref loop; with
    `code` REF_REFUSED, a file the document may not read (outside its folder)."""

    def __init__(self, ref: str, reason: str, *, code: ErrorCode | None = None) -> None:
        if code is not None:
            reason = f"{reason} [{code}]"
        super().__init__(f"$ref {ref!r} {reason}")
        self.ref = ref
        self.reason = reason
        self.code = code


class Resolver:
    """Follows `$ref`s from any file of a document; loads relative files once, on first use."""

    def __init__(
        self,
        root_base: str,
        root: Any,
        load_file: Callable[[str], Any],
        *,
        ref_dirs: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        """File refs may read files under the root document's folder and under `ref_dirs` only
        (symlinks resolved first), so a document cannot pull `/etc/passwd` or `../../.env` into
        its tool schemas."""
        self.root_base = root_base
        self._files: dict[str, Any] = {root_base: root}
        self._failed: dict[str, UnresolvedRef] = {}  # fetched documents that could not be had
        self._load_file = load_file
        self._origin = _origin(root_base)  # a document fetched from a URL: where its refs may lead
        folders = [] if root_base.startswith("<") or self._origin else [Path(root_base).parent]
        self._folders = tuple(Path(folder).resolve() for folder in (*folders, *ref_dirs))

    def file(self, base: str) -> Any:
        return self._files[base]

    def bases(self) -> tuple[str, ...]:
        """Every file (or URL) read so far: the document's own, then each `$ref`ed one."""
        return tuple(self._files)

    def file_digests(self) -> dict[str, str]:
        """The SHA-256 of each `$ref`ed file read so far, by path ("" for one that could not be read):
        what a conversion depends on beyond the document itself. Empty for a fetched document."""
        return dict(getattr(self._load_file, "digests", {}))

    def resolve(self, base: str, ref: str) -> Target:
        """The target of one `$ref`, following chains of refs to refs."""
        seen: set[str] = set()
        target = self._resolve_once(base, ref)
        while isinstance(target.value, dict) and isinstance(target.value.get("$ref"), str):
            if target.key in seen or len(seen) > MAX_REF_CHAIN:
                raise UnresolvedRef(ref, "is a loop of references that never reaches a value")
            seen.add(target.key)
            target = self._resolve_once(target.base, target.value["$ref"])
        return target

    def deref(self, base: str, node: Any) -> tuple[str, Any]:
        """`node` itself, or what its `$ref` points at; with the base file of the result."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target = self.resolve(base, node["$ref"])
            return target.base, target.value
        return base, node

    def _resolve_once(self, base: str, ref: str) -> Target:
        parts = urlsplit(ref)
        if self._origin:
            return self._resolve_remote(base, ref)
        if parts.scheme in ("http", "https", "ftp") or ref.startswith("//"):
            raise UnresolvedRef(ref, "is a remote reference, which is not fetched")
        if parts.scheme and len(parts.scheme) > 1:
            raise UnresolvedRef(ref, f"uses the unsupported scheme {parts.scheme!r}")
        file_part, _, fragment = ref.partition("#")
        target_base = base
        if file_part:
            if base.startswith("<"):
                raise UnresolvedRef(ref, "points at a file, but the document was not read from a file")
            target = (Path(base).parent / unquote(file_part)).resolve()
            if not any(target.is_relative_to(folder) for folder in self._folders):
                raise UnresolvedRef(
                    ref,
                    "points at a file outside the document's folder, which is not read "
                    "(allow a folder with `ref_dirs`)",
                    code=ErrorCode.REF_REFUSED,
                )
            target_base = str(target)
            if target_base not in self._files:
                try:
                    self._files[target_base] = self._load_file(target_base)
                except Exception as error:
                    raise UnresolvedRef(ref, f"points at a file that cannot be read ({error})") from None
        pointer = unquote(fragment)
        try:
            value = walk_pointer(self._files[target_base], pointer)
        except (KeyError, IndexError, TypeError):
            raise UnresolvedRef(ref, "points at nothing in the document") from None
        return Target(target_base, pointer, value)

    def _resolve_remote(self, base: str, ref: str) -> Target:
        """A `$ref` of a fetched document: a URL (relative ones against the file they sit in) of the
        same origin as the document, fetched once; any other origin refused."""
        file_part, _, fragment = ref.partition("#")
        target_base = base
        if file_part:
            target_base = urljoin(base, file_part)
            if _origin(target_base) != self._origin:
                raise UnresolvedRef(
                    ref,
                    "points at another origin than the document's, which is not fetched",
                    code=ErrorCode.REF_REFUSED,
                )
            failed = self._failed.get(target_base)
            if failed is not None:  # asked once: a document that could not be had is not fetched again
                raise UnresolvedRef(ref, failed.reason.removesuffix(f" [{failed.code}]"), code=failed.code)
            if target_base not in self._files:
                try:
                    self._files[target_base] = self._load_file(target_base)
                except DocumentError as error:  # its code says why: refused, too large, too slow
                    self._failed[target_base] = failed = UnresolvedRef(
                        ref, f"points at a document that cannot be fetched ({error.message})", code=error.code
                    )
                    raise failed from None
                except Exception as error:
                    raise UnresolvedRef(
                        ref, f"points at a document that cannot be fetched ({error})"
                    ) from None
        try:
            value = walk_pointer(self._files[target_base], unquote(fragment))
        except (KeyError, IndexError, TypeError):
            raise UnresolvedRef(ref, "points at nothing in the document") from None
        return Target(target_base, unquote(fragment), value)


def _origin(base: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an http(s) base, None for a file or text."""
    parts = urlsplit(base)
    if parts.scheme.lower() not in ("http", "https"):
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    return (
        parts.scheme.lower(),
        (parts.hostname or "").lower(),
        port or (443 if parts.scheme.lower() == "https" else 80),
    )
