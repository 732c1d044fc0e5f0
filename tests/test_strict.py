"""shared: give_up returns its note, and raises under FLAGSCAN_STRICT=1."""

import pytest

from flagscan.strict import GaveUp, give_up


def test_give_up_returns_the_note(monkeypatch):
    monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)
    assert give_up("could not follow x", "a.py:3") == "a.py:3: could not follow x"


def test_give_up_raises_under_strict(monkeypatch):
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    with pytest.raises(GaveUp):
        give_up("could not follow x", "a.py:3")
