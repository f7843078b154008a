"""Removing testbed namespaces: those of one run, or every dead run's
(``tcpeval testbed cleanup``, and at the start of every run). Processes
still inside a dead run's namespace are killed first (the runner keeps
none, so there are normally none); veth pairs vanish with their
namespaces. Nothing outside the testbed's namespaces is touched."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from tcpeval.testbed import iproute, names

#: Lock files younger than this (s) are left alone.
LOCK_GRACE_S = 60.0


def _pids_in(ns: str) -> list[int]:
    out = iproute.run(["ip", "netns", "pids", ns], check=False)
    return [int(x) for x in out.split() if x.isdigit()]


def remove_namespace(ns: str) -> None:
    """Kills what runs inside ``ns`` (never this process) and deletes it."""
    for pid in _pids_in(ns):
        if pid != os.getpid():
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(pid, signal.SIGKILL)
    iproute.run(["ip", "netns", "delete", ns], check=False)


def remove_run(prefix: str) -> list[str]:
    """Deletes every namespace of run ``prefix``; their names."""
    gone = [ns for ns in names.namespaces() if names.prefix_of(ns) == prefix]
    for ns in gone:
        remove_namespace(ns)
    return gone


def cleanup_stale() -> list[str]:
    """Deletes the namespaces of every dead run (and their lock files); their names."""
    removed: list[str] = []
    for prefix in sorted({p for ns in names.namespaces() if (p := names.prefix_of(ns))}):
        if not names.is_alive(prefix):
            removed += remove_run(prefix)
    if names.LOCK_DIR.is_dir():
        for lock in names.LOCK_DIR.glob("tcpeval*.lock"):
            # A young lock file may be a run that is just taking its lock.
            young = time.time() - lock.stat().st_mtime < LOCK_GRACE_S
            if not young and not names.is_alive(lock.stem):
                Path(lock).unlink(missing_ok=True)
    return removed
