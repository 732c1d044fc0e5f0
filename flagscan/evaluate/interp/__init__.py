"""evaluate: the abstract interpreter of lowered SGLang code (values, path states, the interpreter and its builtins).

Kept empty of imports so that reading a cached result (which needs `values` only) does not load the interpreter.
"""
