"""Fixtures shared by the interpreter tests."""

import pytest


@pytest.fixture
def strict(monkeypatch):
    """FLAGSCAN_STRICT=1: a give-up raises (GaveUp), so a test fails where the interpreter gives up."""
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
