"""The dumbbell on this host: four network namespaces joined by veth pairs.

::

    left  eth0 10.0.1.2 ── left0 10.0.1.1  router  right0 10.0.2.1 ── wr  wire  wh ── eth0 10.0.2.10+i  right

- ``router`` forwards between the two sides; the bottleneck is an htb class
  at the bottleneck rate with a pfifo (buffer in packets) or bfifo (bytes)
  leaf, on ``right0`` (R1->R2, link 0) and on ``left0`` (R2->R1, link 1).
- ``wire`` holds no addresses: the delay line (Rust) moves frames between
  ``wr`` and ``wh`` after the delay of the host-side address they carry.
- ``right`` has one address per flow, so each flow gets its own delay.
- Every namespace: IPv6 off (no stray router solicitations on the wire);
  hosts: ``tcp_no_metrics_save=1`` (no cached ssthresh between flows) and
  ``tcp_rmem``/``tcp_wmem`` maxima above the path's BDP plus buffer;
  every veth: TSO, GSO, GRO, scatter-gather and transmit checksumming off
  (``tcpeval._core.testbed_set_offloads``).

Entering the context builds it (after removing dead runs' namespaces);
leaving it, by any path, deletes it. Without the privileges nothing is
created (:func:`~tcpeval.testbed.host.check_can_run` comes first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from tcpeval import _core
from tcpeval.testbed import iproute
from tcpeval.testbed.cleanup import cleanup_stale, remove_namespace
from tcpeval.testbed.host import TestbedError, check_can_run
from tcpeval.testbed.names import RunLock, new_prefix
from tcpeval.testbed.rxpath import NAPI_PRIORITY, check_rx_path, threaded_napi

ROLES = ("left", "router", "wire", "right")
LEFT_ADDR = "10.0.1.2"
ROUTER_LEFT = "10.0.1.1"
ROUTER_RIGHT = "10.0.2.1"
#: Host-side addresses are 10.0.2.(FIRST_HOST + i).
FIRST_HOST = 10
MAX_ADDRS = 240
#: Handles of the bottleneck qdiscs: htb root 1:, class 1:10, fifo leaf 10:.
LEAF_HANDLE = 0x0010_0000  # tc handles are hex: "10:" is 0x10 << 16
#: Smallest TCP buffer maximum the hosts get, bytes.
MIN_TCP_MEM = 6 << 20


@dataclass(frozen=True)
class Bottleneck:
    """Rate (bit/s, frames with their Ethernet header) and DropTail buffer
    (packets or bytes) of each direction of the bottleneck."""

    rate_bps: float
    buffer_pkts: int | None = None
    buffer_bytes: int | None = None


@dataclass
class Dumbbell:
    """A built dumbbell (use as a context manager)."""

    hosts: int
    bottleneck: Bottleneck
    #: R2->R1, when it differs (a BDP buffer follows the flows crossing each direction).
    reverse_bottleneck: Bottleneck | None = None
    tcp_mem_bytes: int = MIN_TCP_MEM
    #: Where the delay line's receiving side runs (:data:`~tcpeval.testbed.rxpath.RX_PATHS`).
    rx_path: str = "napi-threads"
    #: SCHED_FIFO priority of the NAPI threads (None: the kernel's default policy).
    napi_priority: int | None = NAPI_PRIORITY
    prefix: str = field(default_factory=new_prefix)
    facts: dict[str, Any] = field(default_factory=dict)
    _lock: RunLock | None = None
    _made: list[str] = field(default_factory=list)

    def ns(self, role: str) -> str:
        """Namespace name of ``role`` (left, router, wire, right)."""
        return f"{self.prefix}-{role}"

    @staticmethod
    def host_addr(i: int) -> str:
        """Host-side address of flow ``i``."""
        return f"10.0.2.{FIRST_HOST + i}"

    def __enter__(self) -> Dumbbell:
        if not 1 <= self.hosts <= MAX_ADDRS:
            raise TestbedError(f"the testbed dumbbell takes 1 to {MAX_ADDRS} flows, not {self.hosts}")
        check_rx_path(self.rx_path)
        check_can_run()
        self.facts["stale_namespaces_removed"] = cleanup_stale()
        self._lock = RunLock(self.prefix)
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.teardown()

    def teardown(self) -> None:
        """Deletes every namespace made so far and releases the run's lock."""
        for ns in reversed(self._made):
            remove_namespace(ns)
        self._made.clear()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _build(self) -> None:
        ip = iproute.ip
        for role in ROLES:
            ns = self.ns(role)
            ip(None, "netns", "add", ns)
            self._made.append(ns)
            iproute.sysctl(
                ns, {"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"}
            )
            ip(ns, "link", "set", "lo", "up")
        left, router, wire, right = (self.ns(r) for r in ROLES)
        ip(left, "link", "add", "eth0", "type", "veth", "peer", "name", "left0", "netns", router)
        ip(router, "link", "add", "right0", "type", "veth", "peer", "name", "wr", "netns", wire)
        ip(wire, "link", "add", "wh", "type", "veth", "peer", "name", "eth0", "netns", right)
        ip(left, "addr", "add", f"{LEFT_ADDR}/24", "dev", "eth0")
        ip(router, "addr", "add", f"{ROUTER_LEFT}/24", "dev", "left0")
        ip(router, "addr", "add", f"{ROUTER_RIGHT}/24", "dev", "right0")
        for i in range(self.hosts):
            ip(right, "addr", "add", f"{self.host_addr(i)}/24", "dev", "eth0")
        for ns, devs in (
            (left, ["eth0"]),
            (router, ["left0", "right0"]),
            (wire, ["wr", "wh"]),
            (right, ["eth0"]),
        ):
            for d in devs:
                ip(ns, "link", "set", d, "up")
        ip(left, "route", "add", "default", "via", ROUTER_LEFT)
        ip(right, "route", "add", "default", "via", ROUTER_RIGHT)
        mem = str(self.tcp_mem_bytes)
        host_sysctls = {
            "net.ipv4.tcp_no_metrics_save": "1",
            "net.ipv4.tcp_rmem": f"4096 131072 {mem}",
            "net.ipv4.tcp_wmem": f"4096 16384 {mem}",
        }
        for ns in (left, right):
            iproute.sysctl(ns, host_sysctls)
        iproute.sysctl(router, {"net.ipv4.ip_forward": "1"})
        self.facts["sysctls"] = dict(host_sysctls)
        # The veths the delay line sends into: their receive side gets a NAPI thread.
        napi = [(router, "right0"), (right, "eth0")] if self.rx_path == "napi-threads" else []
        offloads_with_ns: list[tuple[str, dict[str, Any]]] = []
        for ns, devs in (
            (left, ["eth0"]),
            (router, ["left0", "right0"]),
            (wire, ["wr", "wh"]),
            (right, ["eth0"]),
        ):
            for d in devs:
                offloads_with_ns += [
                    (ns, o) for o in json.loads(_core.testbed_set_offloads(ns, [d], (ns, d) in napi))
                ]
        role_of = {ns: r for r, ns in zip(ROLES, (left, router, wire, right), strict=True)}
        self.facts["offloads_still_on"] = [
            f"{role_of[ns]}:{o['ifname']}:{o['feature']}"
            for ns, o in offloads_with_ns
            if o["on"] and not o["wanted"]
        ]
        self.facts["rx_path"] = self.rx_path
        self.facts["napi"] = []
        for ns, dev in napi:
            gro = [o for n, o in offloads_with_ns if n == ns and o["ifname"] == dev and o["wanted"]]
            if not all(o["on"] for o in gro):
                raise TestbedError(
                    f"{ns}: GRO cannot be turned on on {dev}, so its veth has no NAPI to thread"
                )
            self.facts["napi"].append(threaded_napi(ns, dev, self.napi_priority) | {"netns": role_of[ns]})
        self._bottleneck_qdisc(router, "right0", self.bottleneck)
        self._bottleneck_qdisc(router, "left0", self.reverse_bottleneck or self.bottleneck)

    def _bottleneck_qdisc(self, ns: str, dev: str, b: Bottleneck) -> None:
        rate = f"{round(b.rate_bps)}bit"
        iproute.tc(ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10")
        iproute.tc(ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb",
                   "rate", rate, "ceil", rate, "quantum", "1514")  # fmt: skip
        if b.buffer_bytes is not None:
            leaf = ["bfifo", "limit", str(b.buffer_bytes)]
        else:
            leaf = ["pfifo", "limit", str(b.buffer_pkts)]
        iproute.tc(ns, "qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", *leaf)
