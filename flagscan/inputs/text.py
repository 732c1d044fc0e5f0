"""inputs: read a launch file as text, refusing what is not one (missing, binary, huge)."""

from __future__ import annotations

import os
from pathlib import Path

from flagscan.inputs.model import MAX_BYTES, InputError, Source


def read_source(path: str | Path, *, label: str | None = None) -> Source:
    """The file's text as a Source; any problem is an InputError naming the file."""
    name = label or str(path)
    try:
        if os.path.isdir(path):
            raise InputError(f"{name}: is a directory, not a launch file")
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise InputError(f"{name}: too large ({size} bytes; the limit is {MAX_BYTES})")
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{name}: too large (the limit is {MAX_BYTES} bytes)")
    return Source.of(name, decode(data, name))


def decode(data: bytes, name: str) -> str:
    if b"\x00" in data[:65536]:
        raise InputError(f"{name}: binary file, not a launch file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None
    # Unit files, shell and YAML all treat CRLF as a line end; keep offsets simple.
    return text.replace("\r\n", "\n")
