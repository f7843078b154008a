"""Saving a report's figures, on several processes, with a progress bar.

Writing a figure in three formats costs matplotlib seconds (a many-axes
time-series figure 5-8 s), far more than building it, and a study's report
can hold dozens. :class:`FigureSaver` takes each built figure and writes its
files either at once (one worker) or on a pool of processes, so a report uses
every core the study's runs used; the page is written only after
:meth:`FigureSaver.wait`, so it never links a file that is not there yet.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from types import TracebackType
from typing import Self

from matplotlib.figure import Figure
from tqdm import tqdm

from ..plots import save_formats


class FigureSaver:
    """Writes figures to files; use as a context manager.

    ``workers`` is the number of saving processes (1: save in this process as
    each figure is submitted); ``progress`` shows a bar over the figures,
    whose total grows as they are submitted. Worker processes are started
    with ``spawn``, never ``fork``, because the parent holds the engine's and
    Arrow's threads.
    """

    def __init__(self, workers: int = 1, progress: bool = False) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._pool = (
            ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
            if workers > 1
            else None
        )
        self._pending: list[Future[None]] = []
        self._bar = tqdm(total=0, unit="figure", desc="report", disable=not progress)

    def submit(self, fig: Figure, paths: Sequence[Path]) -> None:
        """Write ``fig`` to each of ``paths`` (formats from the extensions)."""
        self._bar.total = (self._bar.total or 0) + 1
        self._bar.refresh()
        if self._pool is None:
            save_formats(fig, paths)
            self._bar.update()
        else:
            self._pending.append(self._pool.submit(save_formats, fig, list(paths)))

    def wait(self) -> None:
        """Block until every submitted figure is written; re-raises a worker's error."""
        for done in as_completed(self._pending):
            done.result()
            self._bar.update()
        self._pending.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if kind is None:
                self.wait()
        finally:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=kind is not None)
            self._bar.close()
