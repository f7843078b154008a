"""When does the kernel's BBR enter PROBE_RTT? Runs a BBR scenario on the
linux backend and, beside it, reads the sender's BBR state from the kernel
(`ss -tin`, which prints `tcp_bbr.c`'s `bbr_min_rtt` as `mrtt` through
INET_DIAG_BBRINFO) every 20 ms. For each PROBE_RTT entry (cwnd at
`bbr_cwnd_min_target`, 4 packets) it prints the time since the previous
entry and since the min-RTT filter last took a lower sample.

`tcp_bbr.c` (`bbr_update_min_rtt`) restarts its 10 s min-RTT window
whenever an RTT sample is below the current minimum, and enters PROBE_RTT
when the window expires. On a simulated path the RTT is exact, so the
filter only refreshes at PROBE_RTT itself and the period is 10 s plus the
probe; a real path's microsecond jitter lowers the minimum now and then and
stretches the period. The second column is the rule itself, comparable
across both.

Usage (root): python scripts/bbr_probe_rtt.py [SCENARIO] [--out FILE]
(default scenario: examples/validation/bbr-1flow-50mbps.toml).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_S = 0.02
PROBE_RTT_CWND = 4  # tcp_bbr.c bbr_cwnd_min_target
SS_RE = re.compile(r"cwnd:(\d+).*?bbr:\(bw:[^,]*,mrtt:([\d.]+)", re.S)


def sender_namespace(deadline: float) -> str:
    """The namespace of the running testbed whose sockets report BBR state."""
    while time.time() < deadline:
        names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
        for ns in (n for n in names if n.startswith("tcpeval")):
            out = subprocess.run(
                ["ip", "netns", "exec", ns, "ss", "-tin"], capture_output=True, text=True
            ).stdout
            if "bbr:" in out:
                return ns
        time.sleep(0.05)
    raise SystemExit("no testbed namespace with a BBR socket appeared")


def sample(ns: str, run: subprocess.Popen[bytes]) -> list[tuple[float, int, float]]:
    """(time s, cwnd packets, mrtt ms) of the first BBR socket until the run ends."""
    rows = []
    t0 = time.time()
    while run.poll() is None:
        out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-tin"], capture_output=True, text=True).stdout
        m = SS_RE.search(out)
        if m:
            rows.append((time.time() - t0, int(m.group(1)), float(m.group(2))))
        time.sleep(SAMPLE_S)
    return rows


def probe_rtt_entries(rows: list[tuple[float, int, float]]) -> list[tuple[float, float | None, float | None]]:
    """Per PROBE_RTT entry: (time, since the previous entry, since the
    min-RTT filter's last refresh: a lower sample or the end of a PROBE_RTT,
    which `bbr_update_min_rtt` stamps too)."""
    entries: list[tuple[float, float | None, float | None]] = []
    refreshed = None
    prev_mrtt = None
    in_probe = False
    for t, cwnd, mrtt in rows:
        probing = cwnd <= PROBE_RTT_CWND
        if probing and not in_probe:
            since_prev = t - entries[-1][0] if entries else None
            entries.append((t, since_prev, None if refreshed is None else t - refreshed))
        ended = in_probe and not probing
        lower = not probing and prev_mrtt is not None and mrtt < prev_mrtt
        if ended or lower:
            refreshed = t
        in_probe = probing
        prev_mrtt = mrtt
    return entries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", nargs="?", default=str(ROOT / "examples/validation/bbr-1flow-50mbps.toml"))
    ap.add_argument("--out", help="also write the raw samples (time, cwnd, mrtt) here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["tcpeval", "run", a.scenario, "--backend", "linux", "--out", tmp, "--quiet"]
        run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        ns = sender_namespace(time.time() + 60)
        rows = sample(ns, run)
        if run.returncode:
            sys.exit(f"the testbed run failed ({run.returncode})")
    if a.out:
        Path(a.out).write_text("".join(f"{t:.3f} {c} {m}\n" for t, c, m in rows))
    print("PROBE_RTT entry s | since previous entry s | since the min-RTT filter's last refresh s")
    for t, prev, lower in probe_rtt_entries(rows):
        fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        print(f"{t:.2f} | {fmt(prev)} | {fmt(lower)}")


if __name__ == "__main__":
    main()
