"""type() and issubclass() of builtin types in the abstract interpreter."""

from __future__ import annotations

from tests.evaluate.helpers import run

SOURCE = '''
import msgspec


def plain(value):
    if issubclass(type(value), msgspec.Struct):
        return "record"
    if isinstance(value, (list, tuple)):
        return type(value)(plain(item) for item in value)
    return value


def main():
    return (type(5) is int, issubclass(bool, int), issubclass(type(None), msgspec.Struct),
            plain([1, (2, 3)]), type("a")("b"))
'''


def test_builtin_types_are_the_builtins_themselves(tmp_path):
    value, _ = run(tmp_path, SOURCE)
    # type(5) is int was False, certain; issubclass(int, an outside class) unknown;
    # type(x)(...) an unknown "type call"
    assert value == (True, True, False, [1, (2, 3)], "b")
