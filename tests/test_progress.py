"""The progress bar: drawn on a terminal once work lasts a second, never into a pipe."""

from __future__ import annotations

import io
import os

import pytest

from flagscan import progress


@pytest.fixture(autouse=True)
def _not_quiet():
    """A CLI test run earlier in this process with -q leaves the switch set: each test starts without it."""
    progress.set_quiet(False)
    yield
    progress.set_quiet(False)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _drain(fd: int) -> str:
    import select

    data = b""
    while select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.decode()


def _run(stream, clock: Clock, steps: int = 4) -> None:
    with progress.Progress("flagscan: reading", steps, stream=stream, clock=clock) as bar:
        for _ in range(steps):
            clock.now += 0.6
            bar.advance()


def test_drawn_on_a_terminal_and_erased_at_the_end(monkeypatch) -> None:
    monkeypatch.delenv("FLAGSCAN_PROGRESS", raising=False)
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as tty:
            assert progress.wanted(tty)
            _run(tty, Clock())
        out = _drain(master)
    finally:
        os.close(master)
        os.close(slave)
    assert "flagscan: reading [" in out and "4/4" in out
    assert out.endswith("\r\x1b[K")


def test_never_on_a_pipe(monkeypatch) -> None:
    monkeypatch.delenv("FLAGSCAN_PROGRESS", raising=False)
    read_end, write_end = os.pipe()
    try:
        with open(write_end, "w", closefd=False) as pipe:
            assert not progress.wanted(pipe)
            _run(pipe, Clock())
        os.close(write_end)
        write_end = -1
        assert os.read(read_end, 4096) == b""
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_nothing_for_work_under_a_second() -> None:
    stream = io.StringIO()
    clock = Clock()
    with progress.Progress("x", 3, stream=stream, enabled=True, clock=clock) as bar:
        for _ in range(3):
            clock.now += 0.2
            bar.advance()
    assert stream.getvalue() == ""


def test_the_environment_forces_it_either_way(monkeypatch) -> None:
    monkeypatch.setenv("FLAGSCAN_PROGRESS", "always")
    assert progress.wanted(io.StringIO())
    monkeypatch.setenv("FLAGSCAN_PROGRESS", "never")
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as tty:
            assert not progress.wanted(tty)
    finally:
        os.close(master)
        os.close(slave)


def test_track_yields_every_item_in_order() -> None:
    stream = io.StringIO()
    assert list(progress.track(iter(range(5)), 5, "x", stream=stream, enabled=False)) == [0, 1, 2, 3, 4]
    assert stream.getvalue() == ""


def test_quiet_silences_it_even_when_forced(monkeypatch) -> None:
    monkeypatch.setenv("FLAGSCAN_PROGRESS", "always")
    progress.set_quiet(True)
    try:
        assert not progress.wanted(io.StringIO())
    finally:
        progress.set_quiet(False)
    assert progress.wanted(io.StringIO())


def test_flagscan_q_sets_quiet(monkeypatch) -> None:
    from click.testing import CliRunner

    from flagscan.cli import main

    try:
        CliRunner().invoke(main, ["-q", "rules"])
        assert progress._QUIET
        CliRunner().invoke(main, ["rules"])
        assert not progress._QUIET
    finally:
        progress.set_quiet(False)
