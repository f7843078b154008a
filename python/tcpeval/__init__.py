"""tcpeval: fast packet-level simulation and evaluation of high-speed TCP.

The engine is Rust (``tcpeval._core``); this package loads and validates
scenarios, runs them with progress, and hands back pandas-friendly results.

>>> import tcpeval
>>> result = tcpeval.run("examples/dumbbell-reno.toml")   # doctest: +SKIP
>>> result.summary()                                      # doctest: +SKIP
"""

import importlib
from typing import TYPE_CHECKING, Any

from tcpeval._core import __version__
from tcpeval.errors import ScenarioError
from tcpeval.registry import algorithms
from tcpeval.scenario import Scenario, load_scenario

if TYPE_CHECKING:
    from tcpeval.result import RunResult
    from tcpeval.simulate import run

# ``run`` and ``RunResult`` need pandas and numpy (about 0.3-0.5 s to import);
# they load on first use so that ``import tcpeval`` (and every CLI command
# that needs no tables) stays fast (PEP 562 module ``__getattr__``).
_LAZY = {"RunResult": "tcpeval.result", "run": "tcpeval.simulate"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tcpeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__version__",
    "algorithms",
    "load_scenario",
    "run",
]
