"""tcpeval: fast packet-level simulation and evaluation of high-speed TCP.

The engine is Rust (``tcpeval._core``); this package loads and validates
scenarios, runs them with progress, and hands back pandas-friendly results.

>>> import tcpeval
>>> result = tcpeval.run("examples/dumbbell-reno.toml")   # doctest: +SKIP
>>> result.summary()                                      # doctest: +SKIP
"""

from tcpeval._core import __version__
from tcpeval.errors import ScenarioError
from tcpeval.registry import algorithms
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario, load_scenario
from tcpeval.simulate import run

__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__version__",
    "algorithms",
    "load_scenario",
    "run",
]
