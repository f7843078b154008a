"""The package re-exports its public functions."""

import inspect

from tcpeval import metrics


def test_every_export_exists_and_is_documented():
    assert len(metrics.__all__) == len(set(metrics.__all__))
    for name in metrics.__all__:
        obj = getattr(metrics, name)
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_every_public_function_of_the_modules_is_exported():
    for module_name in (
        "convergence",
        "fairness",
        "fct",
        "loss",
        "queue",
        "reno_mode",
        "runview",
        "saturation",
        "spectra",
        "stability",
        "stats",
        "throughput",
    ):
        module = getattr(metrics, module_name)
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__ and not name.startswith("_"):
                assert name in metrics.__all__, f"{module_name}.{name} is not re-exported"
