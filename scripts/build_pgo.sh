#!/usr/bin/env bash
# Installs tcpeval into the active Python environment with its engine built
# by profile-guided optimization (PGO): an instrumented build first runs
# scripts/pgo_training.py (the examples, a run of each study experiment and
# each algorithm), then the final build lays out and inlines the code by the
# branch counts that run recorded. Results are bit for bit those of the
# plain build (the same code, compiled differently); BENCHMARKS.md has the
# speed measured ("Profile-guided optimization").
#
# Needs, besides what `pip install .` needs: llvm-profdata of the same LLVM
# major version as rustc (`rustc -vV` prints it), from `rustup component add
# llvm-tools` or the distribution (Debian: `apt install llvm-NN`). Takes about
# twice a plain install (two builds) plus a minute and a half of training
# (4 min 19 s on the 2-core VM of BENCHMARKS.md with the dependencies cached).
#
# Usage: scripts/build_pgo.sh [TRAINING_DURATION_S]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-100}"

llvm_major="$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')"
host="$(rustc -vV | sed -n 's/^host: //p')"
profdata=""
for candidate in \
    "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
    "llvm-profdata-$llvm_major" \
    "/usr/lib/llvm-$llvm_major/bin/llvm-profdata" \
    "llvm-profdata"; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" --version 2>/dev/null | grep -q "LLVM version $llvm_major\."; then
        profdata="$candidate"
        break
    fi
done
if [ -z "$profdata" ]; then
    echo "build_pgo.sh: no llvm-profdata of LLVM $llvm_major (rustc's) found;" >&2
    echo "  install one: rustup component add llvm-tools, or apt install llvm-$llvm_major" >&2
    exit 2
fi

work="$(mktemp -d)"
stage=0
on_exit() {
    status=$?
    rm -rf "$work"
    if [ "$status" -ne 0 ] && [ "$stage" -ge 1 ] && [ "$stage" -lt 4 ]; then
        echo "build_pgo.sh: stopped at step $stage of 4: the installed engine may be the" >&2
        echo "  instrumented one (slow, and it reports profile write errors at exit);" >&2
        echo "  run this script again, or 'pip install .' for the plain build" >&2
    fi
}
trap on_exit EXIT
# A target directory of its own: the flags below would otherwise rebuild,
# and then invalidate, the plain build's cache in target/.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/pgo}"

stage=1
echo "== 1/4 instrumented build (LLVM $llvm_major, $profdata)" >&2
RUSTFLAGS="-Cprofile-generate=$work/build" pip install -q .
stage=2
echo "== 2/4 training (runs cut to $duration s)" >&2
LLVM_PROFILE_FILE="$work/train/%m_%p.profraw" python scripts/pgo_training.py --duration "$duration"
stage=3
echo "== 3/4 merging the profiles" >&2
"$profdata" merge -o "$work/tcpeval.profdata" "$work/train"
echo "== 4/4 optimized build" >&2
RUSTFLAGS="-Cprofile-use=$work/tcpeval.profdata" pip install -q --no-deps .
stage=4
echo "tcpeval installed with a profile-guided engine; check: tcpeval bench --quick" >&2
