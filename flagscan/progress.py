"""shared: a progress bar on stderr for long work (cold analysis, a multi-file lint, a diff).

It is drawn only when stderr is a terminal (never into a pipe or a log file, where
it would be noise in a payload's neighbour), and only once the work has lasted
`delay` seconds, so a warm run that finishes quickly prints nothing. Nothing here
is a dependency: one line, redrawn with a carriage return, erased at the end.
`FLAGSCAN_PROGRESS=never` turns it off; `always` draws it whatever stderr is; `flagscan -q`
(set_quiet) turns it off for the whole run, whichever stage draws it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
DELAY_S = 1.0
WIDTH = 24
_REDRAW_S = 0.1
_QUIET = False


def set_quiet(quiet: bool) -> None:
    """`flagscan -q`: no progress on stderr, from any stage."""
    global _QUIET
    _QUIET = bool(quiet)


def wanted(stream: Any) -> bool:
    """True when a bar may be drawn on `stream`: a terminal, unless -q or the environment says otherwise."""
    if _QUIET:
        return False
    choice = os.environ.get("FLAGSCAN_PROGRESS", "").strip().lower()
    if choice == "never":
        return False
    if choice == "always":
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


class Progress:
    """`label [#####.....] done/total` on one line of `stream` (stderr by default)."""

    def __init__(self, label: str, total: int, *, stream: TextIO | None = None, enabled: bool | None = None,
                 delay: float = DELAY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.total = max(int(total), 0)
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = wanted(self.stream) if enabled is None else enabled
        self.delay = delay
        self.clock = clock
        self.done = 0
        self.started = clock()
        self.drawn = False
        self._last = -1.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self.drawn and now - self._last < _REDRAW_S and self.done < self.total:
            return
        self._last = now
        self._draw()

    def _draw(self) -> None:
        total = self.total or 1
        filled = min(WIDTH, WIDTH * self.done // total)
        line = f"{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total}"
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Erase the bar (the line is left clean for what comes next)."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def track(items: Iterable[T], total: int, label: str, **kw: Any) -> Iterator[T]:
    """Yield `items`, advancing a bar of `total` steps."""
    with Progress(label, total, **kw) as bar:
        for item in items:
            yield item
            bar.advance()


def tracker(label: str, **kw: Any) -> Callable[[Iterable[T], int], Iterator[T]]:
    """A `progress(items, total)` callable (the shape flagscan.extract.reads.load_reads takes)."""

    def wrap(items: Iterable[T], total: int) -> Iterator[T]:
        return track(items, total, label, **kw)

    return wrap


class Activity:
    """`label ... 12 s` on one line of `stream` while work of no known length runs (following
    SGLang's resolution or startup code cold takes seconds to minutes, and how many steps it
    will take is not known ahead). Drawn once the work has lasted `delay` seconds, redrawn
    every `every` seconds from a daemon thread, erased at the end; a warm run, which ends
    before `delay`, prints nothing. Same switches as Progress (terminal only, -q, FLAGSCAN_PROGRESS)."""

    def __init__(self, label: str, *, stream: TextIO | None = None, enabled: bool | None = None,
                 delay: float | None = None, every: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = wanted(self.stream) if enabled is None else enabled
        self.delay = DELAY_S if delay is None else delay
        self.every = every
        self.clock = clock
        self.drawn = False
        self.started = clock()
        self._thread: Any = None   # threading is imported only when a line may be drawn
        self._stop: Any = None
        self._lock: Any = None

    def __enter__(self) -> Activity:
        if self.enabled:
            import threading

            self.started = self.clock()
            self._stop, self._lock = threading.Event(), threading.Lock()
            if self.delay <= 0:
                self._draw()
            self._thread = threading.Thread(target=self._run, name="flagscan-activity", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self.drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.drawn = False

    def _run(self) -> None:
        wait = self.delay if self.delay > 0 else self.every
        while not self._stop.wait(wait):
            with self._lock:
                if self._stop.is_set():
                    return
                self._draw()
            wait = self.every

    def _draw(self) -> None:
        seconds = int(self.clock() - self.started)
        self.stream.write(f"\r{self.label} ... {seconds} s\x1b[K")
        self.stream.flush()
        self.drawn = True


# What the long cold phases say while they run.
RESOLVING = "flagscan: following SGLang's argument resolution"
STARTING = "flagscan: following SGLang's startup code"
GATING = "flagscan: evaluating the runtime gates"


def activity(label: str, **kw: Any) -> Activity:
    """A context manager: `with activity("flagscan: following SGLang's startup code"): ...`."""
    return Activity(label, **kw)
