"""Running iproute2 (``ip``, ``tc``) and ``sysctl`` inside namespaces, with
failures turned into one-line :class:`TestbedError` messages."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from tcpeval.testbed.host import TestbedError


def run(cmd: Sequence[str], *, check: bool = True) -> str:
    """Runs ``cmd``; its stdout. A failure raises :class:`TestbedError` with
    the command and its error output when ``check``."""
    p = subprocess.run(list(cmd), capture_output=True, text=True, check=False)
    if check and p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        raise TestbedError(f"`{' '.join(cmd)}` failed: {err[-1] if err else f'exit status {p.returncode}'}")
    return p.stdout


def ip(ns: str | None, *args: str, check: bool = True) -> str:
    """``ip [-n NS] ARGS``."""
    return run(["ip", *(["-n", ns] if ns else []), *args], check=check)


def tc(ns: str, *args: str) -> str:
    """``tc -n NS ARGS``."""
    return run(["tc", "-n", ns, *args])


def sysctl(ns: str, settings: dict[str, str]) -> None:
    """Writes ``settings`` (name -> value) inside namespace ``ns``."""
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *(f"{k}={v}" for k, v in settings.items())])
