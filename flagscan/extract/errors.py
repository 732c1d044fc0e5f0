"""extract: the error an extraction raises when the tree is not SGLang where the rule data says it should be."""

from __future__ import annotations


class ExtractionError(Exception):
    """The tree has no recognisable SGLang code where the rule data says it should be."""
