"""The real-Linux testbed backend: a scenario's dumbbell rebuilt from network
namespaces on this host and run in real time on the kernel's TCP.

Modules, in the order a run uses them:

- :mod:`~tcpeval.testbed.host`: may we (root or CAP_NET_ADMIN, ``ip netns``),
  which congestion controls the kernel offers, host facts for the summary;
- :mod:`~tcpeval.testbed.names`: unique per-run namespace names and the lock
  that tells a live run's namespaces from a dead one's;
- :mod:`~tcpeval.testbed.iproute`: running ``ip`` and ``tc``;
- :mod:`~tcpeval.testbed.dumbbell`: namespaces, veth pairs, addresses,
  routes, sysctls, offloads and the bottleneck qdiscs, torn down on every
  exit path;
- :mod:`~tcpeval.testbed.cleanup`: removing the namespaces of dead runs;
- :mod:`~tcpeval.testbed.plan`: which scenarios map onto the testbed, and how;
- :mod:`~tcpeval.testbed.run`: one run (Rust threads, ``tcpeval._core.TestbedRun``)
  into a :class:`~tcpeval.result.RunResult`.

The per-packet work (delay line, senders, receivers, probes) is Rust, in
``crates/tcpeval-testbed``. Usage: docs/testbed.md.
"""

from tcpeval.testbed.host import TestbedError

#: Where a scenario or a study can run: the simulator, or this host's kernel.
BACKENDS = ("sim", "linux")

__all__ = ["BACKENDS", "TestbedError"]
