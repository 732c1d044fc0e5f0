"""extract: module-name arithmetic shared by the libcst and ast readers."""

from __future__ import annotations


def absolute_module(module: str, package: str, level: int) -> str:
    """The absolute name of `from <level dots><module> import ...` inside `package`."""
    if level == 0:
        return module
    parts = package.split(".")
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    return f"{base}.{module}" if module else base
