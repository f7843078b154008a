"""Heavy libraries load where they are used, not at package import.

`import tcpeval` and the CLI's listing commands must not pull in pandas,
scipy or matplotlib (together 1.5-2.5 s of imports on the project machine;
issue 19 asks for `import tcpeval` under 0.25 s). Each check runs in a fresh
interpreter, since this test process has imported them long ago.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import subprocess_env

HEAVY = ("pandas", "scipy", "matplotlib", "numpy")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('LOADED:', *(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=subprocess_env()
    )
    last = out.stdout.splitlines()[-1]  # the command's own output comes first
    assert last.startswith("LOADED:")
    return set(last.split()[1:])


@pytest.mark.parametrize(
    "code",
    [
        "import tcpeval",
        "import tcpeval.cli",
        "from tcpeval.cli import main\nmain(['algorithms', '--json'])",
        "from tcpeval.cli import main\nmain(['queues'])",
    ],
)
def test_light_entry_points_import_no_heavy_library(code: str) -> None:
    assert _loaded_after(code) == set()


def test_lazy_names_still_resolve() -> None:
    loaded = _loaded_after(
        "import tcpeval\nassert callable(tcpeval.run)\nassert tcpeval.RunResult.__name__ == 'RunResult'"
    )
    assert "pandas" in loaded  # the lazy attribute really imported what it needs
    with pytest.raises(subprocess.CalledProcessError):
        _loaded_after("import tcpeval\ntcpeval.no_such_name")


def test_study_import_leaves_scipy_for_the_metrics_that_use_it() -> None:
    assert "scipy" not in _loaded_after("import tcpeval.study")
