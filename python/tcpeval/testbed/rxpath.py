"""Where the receiving side of the delay line's sends runs: NAPI threads
on the veths the delay line sends into.

A veth without NAPI hands a frame to its peer by queueing it on the
sending CPU's backlog, which the kernel drains in the sender's softirq, at
the end of the same ``send()``. For the delay line that means its thread
toward the router runs, per ACK, the router's forwarding, the sender's ACK
processing, its new segments and their way through the router and htb
(about 30 us per ACK, BENCHMARKS.md), and rounds of sends of 50 ms above
400 Mbit/s. With a NAPI thread on the receiving veth, ``send()`` only
queues the frame on the veth's ring and wakes that thread; the stack work
runs there, in a kernel thread the scheduler can put on the other CPU.

A veth runs NAPI only while GRO is on (or an XDP program is attached), so
on the two veths the delay line sends into (the router's ``right0`` and
the receiving host's ``eth0``) GRO is on, ``gro_max_size`` is 0 so GRO
merges nothing (every frame stays one MSS, as with GRO off: the
bottleneck qdisc and the receiver see the same packets), and
``/sys/class/net/DEV/threaded`` is 1. The kernel then starts one thread
``napi/DEV-ID`` per receive queue; the testbed gives it ``SCHED_FIFO`` at
:data:`NAPI_PRIORITY`, between the hosts' threads and the delay line's, so
on a shared machine it is not queued behind other processes. The threads
belong to the run's veths and end when the run's namespaces are deleted;
nothing outside the namespaces is changed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tcpeval.testbed import iproute
from tcpeval.testbed.host import TestbedError

#: Receive paths a dumbbell can be built with: NAPI threads on the veths the
#: delay line sends into (the default), or the kernel's default softirq
#: processing in the sending thread (the testbed before 2026-11-28; kept to
#: measure against).
RX_PATHS = ("napi-threads", "softirq")
#: SCHED_FIFO priority of the NAPI threads: above the hosts' threads (40),
#: below the delay line (50), whose wake-ups must come first.
NAPI_PRIORITY = 45


def napi_threads(dev: str) -> dict[int, str]:
    """Kernel threads named ``napi/DEV-<id>`` on the host: pid -> name."""
    out = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            name = (p / "comm").read_text().strip()
        except OSError:  # it ended meanwhile
            continue
        if name.startswith(f"napi/{dev}-"):
            out[int(p.name)] = name
    return out


def _write_sysfs(ns: str, path: str, value: str) -> None:
    """Writes ``value`` to ``path`` as seen inside namespace ``ns`` (``ip
    netns exec`` mounts that namespace's sysfs)."""
    p = subprocess.run(
        ["ip", "netns", "exec", ns, "tee", path], input=value, capture_output=True, text=True, check=False
    )
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()
        raise TestbedError(f"cannot write {value!r} to {path} in {ns}: {err[-1] if err else p.returncode}")


def threaded_napi(ns: str, dev: str, priority: int | None = NAPI_PRIORITY) -> dict[str, Any]:
    """Gives veth ``dev`` of namespace ``ns`` (GRO already on) a NAPI thread
    that merges nothing; the thread real-time at ``priority`` (None: left at
    the kernel's default). Returns what was set, for the run's host facts.
    Raises :class:`TestbedError` (one line) if the kernel refuses."""
    iproute.ip(ns, "link", "set", "dev", dev, "gro_max_size", "0")
    before = set(napi_threads(dev))
    path = f"/sys/class/net/{dev}/threaded"
    try:
        _write_sysfs(ns, path, "1")
    except TestbedError as e:
        raise TestbedError(
            f"{ns}: {dev} cannot get a NAPI thread ({e}); the testbed needs a kernel whose veth "
            "supports threaded NAPI (Linux 5.12+ with GRO on)"
        ) from None
    new = {pid: name for pid, name in napi_threads(dev).items() if pid not in before}
    if not new:
        raise TestbedError(f"{ns}: {dev} has threaded NAPI on but the kernel started no napi/{dev}-* thread")
    threads = []
    for pid, name in sorted(new.items()):
        t: dict[str, Any] = {"pid": pid, "name": name, "policy": "other", "priority": 0}
        if priority is not None:
            try:
                os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(priority))
                t |= {"policy": "fifo", "priority": priority}
            except OSError as e:
                t["realtime_refused"] = str(e)
        threads.append(t)
    return {"netns": ns, "dev": dev, "gro_max_size": 0, "threaded": 1, "napi_threads": threads}


def check_rx_path(rx_path: str) -> None:
    """Raises :class:`TestbedError` for an unknown receive path."""
    if rx_path not in RX_PATHS:
        raise TestbedError(f"unknown receive path {rx_path!r}; one of {', '.join(RX_PATHS)}")
