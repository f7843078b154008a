"""What the host allows and what it is: privilege and ``ip netns`` checks
(before anything is created), the kernel's congestion controls, and the
facts a run's summary records (kernel, CPU, load)."""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path

#: Bit of CAP_NET_ADMIN in the capability sets (include/uapi/linux/capability.h).
CAP_NET_ADMIN = 12
#: Bit of CAP_SYS_ADMIN, which setns(2) into a network namespace also needs.
CAP_SYS_ADMIN = 21
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


class TestbedError(RuntimeError):
    """The testbed cannot run here or cannot run this scenario; the message
    is one line saying why and, where it helps, what to do."""

    __test__ = False  # not a pytest test class despite its name


def _effective_caps() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return int(line.split()[1], 16)
    return 0


def check_can_run() -> None:
    """Raises :class:`TestbedError` (one line) unless this process may build
    namespaces: Linux, ``ip`` and ``tc`` installed, ``ip netns`` supported,
    CAP_NET_ADMIN and CAP_SYS_ADMIN (root has both). Creates nothing."""
    if platform.system() != "Linux":
        raise TestbedError(f"the linux backend needs Linux; this is {platform.system()}")
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            raise TestbedError(f"the linux backend needs iproute2's `{tool}` command; install iproute2")
    caps = _effective_caps()
    missing = [
        n
        for n, b in (("CAP_NET_ADMIN", CAP_NET_ADMIN), ("CAP_SYS_ADMIN", CAP_SYS_ADMIN))
        if not caps >> b & 1
    ]
    if missing:
        raise TestbedError(
            f"the linux backend needs root (or {' and '.join(missing)}) to build network namespaces; "
            "run it as root"
        )
    if not Path("/proc/self/ns/net").exists():
        raise TestbedError(
            "this kernel has no network namespaces (no /proc/self/ns/net); `ip netns` cannot work"
        )


def available_congestion_control() -> list[str]:
    """The congestion controls the kernel offers (tcp_available_congestion_control)."""
    try:
        return AVAILABLE_CC.read_text().split()
    except OSError:
        return []


def check_algorithms(names: dict[str, str]) -> None:
    """``names``: scenario field -> algorithm. Raises :class:`TestbedError`
    naming the field and the kernel's list for one the kernel lacks."""
    have = available_congestion_control()
    for field, name in names.items():
        if name not in have:
            raise TestbedError(
                f"{field}: the kernel offers no congestion control {name!r}; "
                f"available: {', '.join(have) or 'none'} (tcp_available_congestion_control)"
            )


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs since boot (/proc/stat)."""
    fields = [float(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    return sum(fields) - idle, sum(fields)


def facts() -> dict[str, object]:
    """Kernel, CPUs and load of this host."""
    return {
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadavg_1min_before": float(Path("/proc/loadavg").read_text().split()[0]),
        "available_congestion_control": available_congestion_control(),
    }
