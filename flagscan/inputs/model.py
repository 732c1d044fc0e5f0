"""inputs: the records a launch file reader produces (tokens with file positions, commands)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from pathlib import Path

# Launch files bigger than this are refused: no real unit, script or manifest is.
MAX_BYTES = 5 * 1024 * 1024

KINDS = ("systemd", "shell", "compose", "k8s", "argv")

NO_LAUNCH = "no SGLang launch command found (looked for python -m sglang.launch_server, sglang serve)"


class InputError(Exception):
    """A launch file flagscan cannot read; `str()` is one line naming the file and the reason."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


@dataclass(frozen=True, slots=True)
class ArgToken:
    """One argument as the server would receive it, and where it starts in the file.

    `line` and `column` are 1-based and point at the first character of the word
    in the file (its opening quote, or the `$` of the variable it came from).
    `unresolved` names the variables the token still references because their
    value is unknown here (left as written, e.g. ``${MODEL}``).
    `start` and `end` are the word's source span as 0-based character offsets into
    the file (end exclusive), quotes and escapes included: ``"--flag"`` spans eight
    characters. Tokens that come from one word of the file (a variable expanding to
    several arguments) share that word's span. `item` says the token is a whole item
    of a YAML sequence (`- "--flag"`, `["--flag", ...]`), so removing it removes the item.
    """

    text: str
    path: str
    line: int
    column: int
    unresolved: tuple[str, ...] = ()
    start: int = -1
    end: int = -1
    item: bool = False


@dataclass(frozen=True, slots=True)
class LaunchCommand:
    """One SGLang launch found in a file.

    `kind` is one of KINDS; `launcher` the words that start the server
    (``("python3", "-m", "sglang.launch_server")`` or ``("sglang", "serve")``,
    empty when the file gives only server arguments); `args` the server
    arguments; `env` the environment the process would see, as far as the file
    says. `notes` are one-line remarks about what could not be followed.
    """

    path: str
    line: int
    kind: str
    launcher: tuple[str, ...]
    args: tuple[ArgToken, ...]
    env: dict[str, str] = field(default_factory=dict, hash=False)
    notes: tuple[str, ...] = ()

    @property
    def argv(self) -> list[str]:
        return [*self.launcher, *(a.text for a in self.args)]


@dataclass(frozen=True, slots=True)
class Source:
    """A text and its name; turns character offsets into 1-based (line, column)."""

    path: str
    text: str
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, path: str | Path, text: str) -> Source:
        starts = [0]
        starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")
        return cls(str(path), text, tuple(starts))

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        row = bisect.bisect_right(self.line_starts, offset) - 1
        return row + 1, offset - self.line_starts[row] + 1

    def line_of(self, offset: int) -> int:
        return self.position(offset)[0]


@dataclass(frozen=True, slots=True)
class Word:
    """A word being read: its text, the source offset of each character, where it begins.

    `end` is the offset just past the word's last source character (closing quote
    included); -1 when the reader did not say, then the last character's offset + 1.
    `item`: the word is a whole item of a YAML sequence (see ArgToken).
    """

    text: str
    offsets: tuple[int, ...]
    start: int
    source: Source
    unresolved: tuple[str, ...] = ()
    end: int = -1
    item: bool = False

    @classmethod
    def plain(cls, text: str, start: int, source: Source, step: int = 1) -> Word:
        return cls(text, tuple(start + i * step for i in range(len(text))), start, source)

    @property
    def stop(self) -> int:
        """The end of the word's source span (exclusive)."""
        if self.end >= 0:
            return self.end
        return max(self.offsets) + 1 if self.offsets else self.start

    def rebuilt(self, text: str, offsets: tuple[int, ...], unresolved: tuple[str, ...] | None = None,
                start: int | None = None) -> Word:
        """Another text read from the same source word: same span, same item-ness."""
        return Word(text, offsets, self.start if start is None else start, self.source,
                    self.unresolved if unresolved is None else unresolved, self.stop, self.item)

    def token(self) -> ArgToken:
        line, column = self.source.position(self.start)
        return ArgToken(self.text, self.source.path, line, column, self.unresolved, self.start, self.stop,
                        self.item)

    def with_text(self, text: str) -> Word:
        offsets = self.offsets[: len(text)]
        if len(offsets) < len(text):
            last = offsets[-1] if offsets else self.start
            offsets = offsets + (last,) * (len(text) - len(offsets))
        return self.rebuilt(text, offsets)

    def slice(self, begin: int) -> Word:
        """The word without its first `begin` characters (e.g. after a ``-m`` or ``NAME=``)."""
        start = self.offsets[begin] if begin < len(self.offsets) else self.start
        return self.rebuilt(self.text[begin:], self.offsets[begin:], start=start)
