"""inputs: systemd unit-file syntax (systemd.syntax): sections, continuations, words, escapes."""

from __future__ import annotations

from dataclasses import dataclass

from flagscan.inputs.model import InputError, Source, Word

WHITESPACE = " \t\n\r"
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                   "\\": "\\", '"': '"', "'": "'", "s": " "}
_HEX = "0123456789abcdefABCDEF"


@dataclass(frozen=True, slots=True)
class Entry:
    """One `Key=value` assignment; `value` keeps each character's file offset."""

    section: str
    key: str
    value: Word
    line: int


def _logical_lines(source: Source) -> list[tuple[str, list[int], int]]:
    """Join continuation lines as systemd does: `\\` at the end becomes a space, comment lines
    inside a continuation are skipped, and a blank line ends it."""
    out: list[tuple[str, list[int], int]] = []
    chars: list[str] = []
    offs: list[int] = []
    first = -1
    pos = 0
    for raw in source.text.split("\n"):
        start, pos = pos, pos + len(raw) + 1
        if first >= 0 and raw.lstrip(" \t").startswith(("#", ";")):
            continue
        if first < 0:
            first = start
        chars.append(raw)
        offs.extend(range(start, start + len(raw)))
        tail = len(raw) - len(raw.rstrip("\\"))
        if tail % 2 == 1:
            chars[-1] = raw[:-1] + " "
            continue
        out.append(("".join(chars), offs, first))
        chars, offs, first = [], [], -1
    if first >= 0:
        out.append(("".join(chars), offs, first))
    return out


def parse_unit(source: Source) -> list[Entry]:
    """Every assignment of the unit in file order (sections kept, comments dropped)."""
    entries: list[Entry] = []
    section = ""
    for text, offs, first in _logical_lines(source):
        body = text.strip(WHITESPACE)
        if not body or body[0] in "#;":
            continue
        line = source.line_of(first)
        if body[0] == "[":
            if not body.endswith("]"):
                raise InputError(f"{source.path}:{line}: invalid section header {body[:60]!r}")
            section = body[1:-1]
            continue
        eq = text.find("=")
        if eq < 0 or not section:
            continue  # systemd logs and ignores a line without '=' or outside a section
        key = text[:eq].strip(WHITESPACE)
        begin = eq + 1
        while begin < len(text) and text[begin] in WHITESPACE:
            begin += 1
        end = len(text)
        while end > begin and text[end - 1] in WHITESPACE:
            end -= 1
        value_offs = tuple(offs[begin:end])
        start = value_offs[0] if value_offs else (offs[eq] + 1 if eq < len(offs) else first)
        entries.append(Entry(section, key, Word(text[begin:end], value_offs, start, source), line))
    return entries


def _cunescape_one(text: str, i: int) -> tuple[str, int] | None:
    """systemd's cunescape_one(): the character escaped at text[i] (after the backslash) and
    how many characters the escape used, or None for an invalid escape."""
    c = text[i]
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], 1
    if c in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[c]
        digits = text[i + 1:i + 1 + width]
        if len(digits) != width or any(d not in _HEX for d in digits):
            return None
        value = int(digits, 16)
        if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            return None
        return chr(value), 1 + width
    if c in "01234567":
        digits = text[i:i + 3]
        if len(digits) != 3 or any(d not in "01234567" for d in digits):
            return None
        value = int(digits, 8)
        if value == 0 or value > 255:
            return None
        return chr(value), 3
    return None


class WordError(Exception):
    pass


def extract_word(value: Word, p: int, *, cunescape: bool = True, relax: bool = False,
                 allow_unbalanced: bool = False) -> tuple[Word | None, int]:
    """systemd's extract_first_word() with EXTRACT_UNQUOTE (quotes anywhere in a word are
    removed) and, when `cunescape`, EXTRACT_CUNESCAPE. Returns the word and the new position.
    `relax` keeps invalid escapes verbatim (EXTRACT_CUNESCAPE_RELAX)."""
    text, offsets = value.text, value.offsets
    n = len(text)
    while p < n and text[p] in WHITESPACE:
        p += 1
    if p >= n:
        return None, n
    start = offsets[p]
    chars: list[str] = []
    offs: list[int] = []
    quote = ""
    while True:
        if p >= n:
            if quote and not allow_unbalanced:
                raise WordError("unbalanced quoting")
            break
        c = text[p]
        if c == "\\":
            if p + 1 >= n:
                if relax and (not quote or allow_unbalanced):
                    chars.append("\\")
                    offs.append(offsets[p])
                    p += 1
                    break
                raise WordError("trailing backslash")
            if not cunescape:
                chars.append(text[p + 1])
                offs.append(offsets[p])
                p += 2
                continue
            escaped = _cunescape_one(text, p + 1)
            if escaped is None:
                if not relax:
                    raise WordError("invalid escape")
                chars.extend(("\\", text[p + 1]))
                offs.extend((offsets[p], offsets[p + 1]))
                p += 2
                continue
            chars.append(escaped[0])
            offs.append(offsets[p])
            p += 1 + escaped[1]
            continue
        if quote:
            if c == quote:
                quote = ""
            else:
                chars.append(c)
                offs.append(offsets[p])
            p += 1
            continue
        if c in "'\"":
            quote = c
            p += 1
            continue
        if c in WHITESPACE:
            break
        chars.append(c)
        offs.append(offsets[p])
        p += 1
    # The word's span ends after its last character read (a closing quote included).
    return Word("".join(chars), tuple(offs), start, value.source, (), offsets[p - 1] + 1), p


def extract_word_and_warn(value: Word, p: int, notes: list[str], line: int) -> tuple[Word | None, int]:
    """extract_first_word_and_warn(): retry with invalid escapes kept verbatim, as systemd does."""
    try:
        return extract_word(value, p)
    except WordError:
        pass
    try:
        word, p = extract_word(value, p, relax=True)
    except WordError:
        raise InputError(f"{value.source.path}:{line}: unbalanced quoting (systemd rejects the line)") from None
    shown = word.text if word else ""
    notes.append(f"{value.source.path}:{line}: systemd ignores unknown escape sequences in {shown!r}")
    return word, p
