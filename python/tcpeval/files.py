"""Small file-system helpers shared by the store, the catalog and the report:
atomic writes and content checksums.

An atomic write goes to a temporary file beside the target (named
``.NAME.tmp-PID-TOKEN``, so concurrent writers never share one) and is
renamed over the target only once complete: a reader, or a rerun after a
crash or a full disk, sees the old file or the new one, never a truncated
one. A failed write removes its temporary file.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tcpeval.errors import StoreError

CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file's contents, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def temp_name(path: Path) -> Path:
    """A temporary name beside ``path`` that no other writer uses."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yields a temporary path to write; on success it replaces ``path``,
    on an error it is removed and the error propagates."""
    target = Path(path)
    tmp = temp_name(target)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically (see the module doc); an
    :class:`OSError` becomes a :class:`~tcpeval.errors.StoreError` naming ``path``."""
    try:
        with atomic_path(path) as tmp:
            tmp.write_bytes(data)
    except OSError as e:
        raise StoreError(path, f"cannot write: {e.strerror or e}") from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """Writes ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_with(path: str | Path, writer: Callable[[Path], object]) -> None:
    """Calls ``writer(tmp)`` to write a temporary file, then renames it to ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
