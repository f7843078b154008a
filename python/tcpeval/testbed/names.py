"""Namespace names of a run and how to tell whether their run is alive.

Every run's namespaces share a prefix ``tcpeval<PID>-<8 hex>`` (unique per
run). While the run lives it holds an exclusive ``flock`` on
``/run/tcpeval-testbed/<prefix>.lock``; the kernel drops the lock when the
process dies, even by SIGKILL, so a namespace whose prefix's lock can be
taken belongs to a dead run (a reused PID does not fool it)."""

from __future__ import annotations

import fcntl
import os
import re
import secrets
from pathlib import Path

LOCK_DIR = Path("/run/tcpeval-testbed")
NETNS_DIR = Path("/run/netns")
PREFIX_RE = re.compile(r"^(tcpeval\d+-[0-9a-f]{8})-[a-z]+$")


def new_prefix() -> str:
    """A fresh run prefix."""
    return f"tcpeval{os.getpid()}-{secrets.token_hex(4)}"


class RunLock:
    """The lock that marks a prefix's run as alive (see the module doc)."""

    def __init__(self, prefix: str) -> None:
        self.path = LOCK_DIR / f"{prefix}.lock"
        LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self) -> None:
        """Removes the lock file and releases the lock."""
        if self._fd >= 0:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = -1


def is_alive(prefix: str) -> bool:
    """True while the run owning ``prefix`` holds its lock."""
    path = LOCK_DIR / f"{prefix}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def namespaces() -> list[str]:
    """Every network namespace named by ``ip netns`` that is a tcpeval run's."""
    try:
        return sorted(n for n in os.listdir(NETNS_DIR) if PREFIX_RE.match(n))
    except FileNotFoundError:
        return []


def prefix_of(ns: str) -> str | None:
    """The run prefix of a testbed namespace name."""
    m = PREFIX_RE.match(ns)
    return m.group(1) if m else None
