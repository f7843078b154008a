"""scripts/ns2_crosscheck.py: how it reads ns-2's output and the paper's values
(no ns-2 needed), and one short real ns-2 run where ns-2 is installed (slow)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import load_script

ROOT = Path(__file__).resolve().parents[2]


def test_table3_metrics_from_ns2_counters() -> None:
    # Two flows: 1000 and 3000 segments of 1000 B acknowledged in 10 s;
    # 8 drops of 4100 data packets sent.
    out = "\n".join(
        [
            "flow=0 acked=1000 sent=1030 retransmitted=4 cwnd=20",
            "flow=1 acked=3000 sent=3070 retransmitted=4 cwnd=60",
            "total acked=4000 sent=4100 drops=8 bottleneck_drops=8",
        ]
    )
    m = load_script("ns2_crosscheck").parse(out, 10.0)
    assert m["throughput_mbps"] == pytest.approx(4000 * 1000 * 8 / 10 / 1e6)
    assert m["loss_pct"] == pytest.approx(100 * 8 / 4100)
    # Jain: (1000 + 3000)^2 / (2 (1000^2 + 3000^2)) = 0.8
    assert m["intra_fairness"] == pytest.approx(0.8)


def test_timeouts_per_phase_are_differences_of_a_and_b_counters() -> None:
    lines = []
    for t, a, b, c in [(1, 1, 0, 0), (2, 4, 2, 9), (3, 5, 2, 9)]:
        lines += [
            f"t={t} flow=A acked=1 sent=1 retransmitted=0 timeouts={a}",
            f"t={t} flow=B acked=1 sent=1 retransmitted=0 timeouts={b}",
            f"t={t} flow=C acked=1 sent=1 retransmitted=0 timeouts={c}",
            f"t={t} link=fwd drops=0 departures=1",
        ]
    # A + B: 1, 6, 7 at the phase ends; C (reverse) is not counted.
    assert load_script("ns2_crosscheck").phase_timeouts("\n".join(lines)) == [1, 5, 1]


def test_paper_values_read_table3_claims_loss_in_percent(tmp_path: Path) -> None:
    card = tmp_path / "scorecard.csv"
    card.write_text(
        "id,paper\n"
        "t3-thr-cubic-100,513.72 ± 30 %\n"
        "t3-loss-cubic-100,0.0012 ± 0.0006\n"
        "t3-intra-bic-250,1 ± 0.1\n"
        "s32-reno-lowest,reno < cubic\n"
    )
    v = load_script("ns2_crosscheck").paper_values(card)
    assert v == {
        ("throughput_mbps", "cubic", 100): 513.72,
        ("loss_pct", "cubic", 100): pytest.approx(0.12),
        ("intra_fairness", "bic", 250): 1.0,
    }


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian's ns2) is not installed")
def test_linux_variants_script_runs_in_ns2(tmp_path: Path) -> None:
    # Two CUBIC flows for 2 s over the study's topology: both send, the
    # aggregate stays below the 1 Gbit/s bottleneck, and a 20-packet buffer
    # overflows in slow start.
    mod = load_script("ns2_crosscheck")
    m = mod.parse(mod.run_cell(tmp_path, "cubic", 2, 20, 2.0), 2.0)
    assert 0 < m["throughput_mbps"] < 1000
    assert m["drops"] > 0
    assert (tmp_path / "cubic-n2-b20-2s.txt").exists()
