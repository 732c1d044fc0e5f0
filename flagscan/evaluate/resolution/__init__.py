"""evaluate: the resolution phase (SGLang's argument resolution run abstractly, its results and their outcomes).

Kept empty of imports so that reading a cached resolution does not load the interpreter.
"""
