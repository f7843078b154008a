"""scripts/pgo_training.py, the workload of the profile-guided build
(scripts/build_pgo.sh): it leaves no algorithm, example or study experiment
out (what it never runs, the optimized build treats as cold), and each of
its runs is valid and runs; and scripts/build_pgo.sh refuses, with a clear
message, to run without the tool it needs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import tcpeval
from conftest import load_script
from tcpeval.registry import algorithms
from tcpeval.study import expand, load_study, shipped_studies

ROOT = Path(__file__).resolve().parents[2]


def test_training_covers_every_algorithm_example_and_study_experiment() -> None:
    labels = [label for label, _ in load_script("pgo_training").training_runs(5.0)]
    assert len(labels) == len(set(labels))
    expected = {f"algorithm/{a.name}/{mode}" for a in algorithms() for mode in ("delack", "ackeach")}
    expected |= {f"example/{p.stem}" for p in (ROOT / "examples").glob("*.toml")}
    for study in shipped_studies():
        expected |= {f"study/{study}/{s.experiment}" for s in expand(load_study(study), quick=True)}
    assert expected == set(labels)
    assert len(expected) > 16 * 2 + 10  # the sets above are not empty


def test_training_runs_are_cut_to_the_duration_and_deliver() -> None:
    runs = list(load_script("pgo_training").training_runs(0.5))
    for label, sc in runs:
        last_start = max((f.get("start_s", 0.0) for f in sc.data["flows"]), default=0.0)
        assert sc.duration_s <= max(0.5, 1.0 + last_start), label
    # The algorithm runs are the script's own scenarios: each must run and
    # move data with both ACK modes (the others are checked by their studies).
    for label, sc in runs:
        if label.startswith("algorithm/"):
            flows = tcpeval.run(sc, progress=False).flows
            assert flows["delivered_bytes"].iloc[0] > 0, label


def test_build_pgo_stops_with_a_clear_message_without_a_matching_llvm_profdata(tmp_path: Path) -> None:
    # A rustc whose LLVM no llvm-profdata on this machine matches: the script
    # must stop before building anything, name the version and say how to
    # get the tool (not fall back to a plain build silently).
    fake = tmp_path / "bin"
    fake.mkdir()
    rustc = fake / "rustc"
    rustc.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--print" ]; then echo /nonexistent; exit 0; fi\n'
        'printf "rustc 9.9.9\\nhost: x86_64-unknown-linux-gnu\\nLLVM version: 999.1.0\\n"\n'
    )
    rustc.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    p = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build_pgo.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 2
    assert "no llvm-profdata of LLVM 999" in p.stderr
    assert "rustup component add llvm-tools" in p.stderr and "apt install llvm-999" in p.stderr
    assert "instrumented build" not in p.stderr


def test_build_pgo_says_how_to_recover_when_a_step_fails(tmp_path: Path) -> None:
    # A matching llvm-profdata, but the instrumented install fails: the
    # script stops and says what may be installed and how to get back.
    fake = tmp_path / "bin"
    fake.mkdir()
    tools = {
        "rustc": 'if [ "$1" = "--print" ]; then echo /nonexistent; exit 0; fi\n'
        'printf "host: x86_64-unknown-linux-gnu\\nLLVM version: 999.1.0\\n"\n',
        "llvm-profdata-999": 'echo "LLVM version 999.1.0"\n',
        "pip": "echo 'pip: no network' >&2; exit 1\n",
    }
    for name, body in tools.items():
        (fake / name).write_text("#!/bin/sh\n" + body)
        (fake / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    p = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build_pgo.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert p.returncode != 0
    assert "1/4 instrumented build" in p.stderr and "2/4" not in p.stderr
    assert "stopped at step 1 of 4" in p.stderr and "pip install ." in p.stderr
