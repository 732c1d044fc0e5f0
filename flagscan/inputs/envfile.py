"""inputs: EnvironmentFile= / .env files, read with systemd's rules (systemd.exec, EnvironmentFile=)."""

from __future__ import annotations

from flagscan.inputs.launcher import is_name
from flagscan.inputs.model import Source

_WS = " \t\r"
# A backslash inside "..." keeps only these characters (POSIX shell double quotes).
_SHELL_NEED_ESCAPE = '"\\`$'


def load_env_file(source: Source) -> dict[str, str]:
    """`KEY=value` lines: `#`/`;` comments, '...' and "..." values that may span lines,
    backslash escapes, trailing whitespace dropped; invalid names are ignored."""
    env: dict[str, str] = {}
    key: list[str] = []
    value: list[str] = []
    key_ws = value_ws = -1
    state = "pre_key"

    def push() -> None:
        name = "".join(key[:key_ws] if key_ws >= 0 else key)
        text = "".join(value)
        if is_name(name):
            env[name] = text

    for c in source.text:
        if state == "pre_key":
            if c in "#;":
                state = "comment"
            elif c not in _WS + "\n":
                state, key, key_ws = "key", [c], -1
        elif state == "key":
            if c == "\n":
                state, key = "pre_key", []
            elif c == "=":
                state, value, value_ws = "pre_value", [], -1
            else:
                if c not in _WS:
                    key_ws = -1
                elif key_ws < 0:
                    key_ws = len(key)
                key.append(c)
        elif state == "pre_value":
            if c == "\n":
                push()
                state = "pre_key"
            elif c == "'":
                state = "single"
            elif c == '"':
                state = "double"
            elif c == "\\":
                state = "value_escape"
            elif c not in _WS:
                state = "value"
                value.append(c)
        elif state == "value":
            if c == "\n":
                if value_ws >= 0:
                    del value[value_ws:]
                push()
                state = "pre_key"
            elif c == "\\":
                state, value_ws = "value_escape", -1
            else:
                if c not in _WS:
                    value_ws = -1
                elif value_ws < 0:
                    value_ws = len(value)
                value.append(c)
        elif state == "value_escape":
            state = "value"
            if c != "\n":
                value.append(c)
        elif state == "single":
            if c == "'":
                state = "pre_value"
            else:
                value.append(c)
        elif state == "double":
            if c == '"':
                state = "pre_value"
            elif c == "\\":
                state = "double_escape"
            else:
                value.append(c)
        elif state == "double_escape":
            state = "double"
            if c in _SHELL_NEED_ESCAPE:
                value.append(c)
            elif c != "\n":
                value.extend(("\\", c))
        elif state == "comment":
            if c == "\\":
                state = "comment_escape"
            elif c == "\n":
                state = "pre_key"
        elif state == "comment_escape":
            state = "pre_key" if c == "\n" else "comment"
    if state in ("pre_value", "value", "value_escape", "single", "double", "double_escape"):
        if state == "value" and value_ws >= 0:
            del value[value_ws:]
        push()
    return env
