"""shared (every stage): giving up explicitly; under FLAGSCAN_STRICT=1 giving up raises.

A place that cannot follow something (an exception inside flagscan, a construct it
does not model) calls `give_up(reason, where)` and gets back the sentence to show:
what was given up on and where. With `FLAGSCAN_STRICT=1` in the environment it
raises `GaveUp` instead, so tests and development runs see the defect (as pyflakes
raises on unknown nodes in its own tests).

A limit flagscan sets itself (call depth, recursion levels, loop passes, a step budget)
is not a give-up: it is reported the same way but never raises here
(flagscan/evaluate/interp/giveup.py `bound`).
"""

from __future__ import annotations

import os


class GaveUp(RuntimeError):
    """Raised by `give_up` under FLAGSCAN_STRICT=1."""


def strict() -> bool:
    return os.environ.get("FLAGSCAN_STRICT", "") not in ("", "0")


def give_up(reason: str, where: str) -> str:
    """The one-line note `where: reason`; raises GaveUp under FLAGSCAN_STRICT=1.
    Call it inside the `except` block so that the raised error chains the original."""
    text = f"{where}: {reason}" if where else reason
    if strict():
        raise GaveUp(text)
    return text
