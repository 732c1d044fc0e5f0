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


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_activity_shows_elapsed_time_on_a_terminal_and_erases_it() -> None:
    import time

    stream = _Terminal()
    with progress.activity("flagscan: following SGLang's startup code", stream=stream, delay=0.05, every=0.05):
        time.sleep(0.3)
    out = stream.getvalue()
    assert "\rflagscan: following SGLang's startup code ... 0 s" in out
    assert out.endswith("\r\x1b[K")   # the line is left clean


def test_activity_prints_nothing_when_the_work_ends_before_its_delay() -> None:
    stream = _Terminal()
    with progress.activity("flagscan: following SGLang's resolution", stream=stream, delay=5.0):
        pass
    assert stream.getvalue() == ""


def test_activity_never_draws_into_a_pipe_or_when_quiet(monkeypatch) -> None:
    import time

    monkeypatch.delenv("FLAGSCAN_PROGRESS", raising=False)
    piped = io.StringIO()
    with progress.activity("flagscan: x", stream=piped, delay=0.01, every=0.01):
        time.sleep(0.1)
    assert piped.getvalue() == ""
    progress.set_quiet(True)
    terminal = _Terminal()
    with progress.activity("flagscan: x", stream=terminal, delay=0.01, every=0.01):
        time.sleep(0.1)
    assert terminal.getvalue() == ""


@pytest.mark.parametrize("command, says", [
    ("resolve", ["following SGLang's argument resolution", "following SGLang's startup code"]),
    ("lint", ["following SGLang's argument resolution", "following SGLang's startup code",
              "evaluating the runtime gates"]),
])
def test_the_cold_phases_of_a_command_say_what_runs(command, says, monkeypatch, tmp_path) -> None:
    """Each interpreter phase of a command is inside an activity line (forced on here, drawn at once)."""
    from pathlib import Path

    from click.testing import CliRunner

    from flagscan.cli import main

    tree = Path(__file__).resolve().parents[1] / "fixtures" / "trees" / "lint"
    unit = tmp_path / "u.service"
    unit.write_text("[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m --tp-size 2\n")
    monkeypatch.setenv("FLAGSCAN_PROGRESS", "always")
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(tmp_path / "c"), command,
                                       "--gpu", "h100", str(unit)])
    assert result.exit_code in (0, 1), result.output
    for text in says:
        assert f"\rflagscan: {text} ... 0 s" in result.stderr
