"""evaluate: runtime gates (whether each read of a setting can be reached on a GPU), their evidence and cache.

Kept empty of imports so that reading cached gate results does not load the interpreter.
"""
