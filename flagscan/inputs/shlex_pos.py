"""inputs: POSIX shell lexing (shlex's quoting rules) that keeps every character's file offset."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAM = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(:?[-=+?])?(.*)\Z", re.S)
_OPERATORS = (
    "<<<", "<<-", "&>>", "&&", "||", ";;", "|&", ">>", ">&", "<&", "<>", ">|", "<<", "&>",
    "|", "&", ";", "(", ")", "<", ">",
)
_SEPARATORS = frozenset({"\n", ";", "&", "&&", "||", "|", "|&", ";;", "(", ")"})
_ANSI_C = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
           "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?"}


@dataclass(slots=True)
class Lit:
    text: str
    offsets: list[int]
    quoted: bool


@dataclass(slots=True)
class Param:
    """`$NAME`, `${NAME}`, `${NAME:-word}`...; `op` is the operator, `arg` its raw word."""

    name: str
    op: str | None
    arg: str
    source: str
    offset: int
    quoted: bool
    plain: bool = True  # False for forms flagscan does not evaluate (${#x}, ${x%y}, ...)


@dataclass(slots=True)
class Subst:
    """A command substitution or arithmetic expansion: its value is never known here."""

    source: str
    offset: int
    quoted: bool


Part = Lit | Param | Subst


@dataclass(slots=True)
class RawWord:
    """`start`/`end`: the word's source span (file offsets, end exclusive, quotes included)."""

    parts: list[Part] = field(default_factory=list)
    start: int = 0
    quoted: bool = False
    error: str | None = None
    end: int = -1

    def literal(self) -> str | None:
        """The word's text when it contains no expansion."""
        texts = [p.text for p in self.parts if isinstance(p, Lit)]
        return "".join(texts) if len(texts) == len(self.parts) else None


@dataclass(slots=True)
class SimpleCommand:
    words: list[RawWord]
    error: str | None = None
    error_offset: int = 0


class Lexer:
    """Splits shell text into simple commands. `offsets[i]` is text[i]'s offset in the file."""

    def __init__(self, text: str, offsets: tuple[int, ...] | None = None) -> None:
        self.text = text
        self.offsets = offsets
        self.i = 0
        self.commands: list[SimpleCommand] = []
        self.current = SimpleCommand([])
        self.word: RawWord | None = None
        self.redirect_target = False
        self.heredoc_delimiter = False
        self.heredocs: list[tuple[str, bool]] = []
        self._dash = False

    def off(self, i: int) -> int:
        if self.offsets is None:
            return i
        if not self.offsets:
            return 0
        return self.offsets[min(i, len(self.offsets) - 1)]

    # -- words ---------------------------------------------------------------
    def _word(self) -> RawWord:
        if self.word is None:
            self.word = RawWord(start=self.off(self.i))
        return self.word

    def _lit(self, chars: str, first: int, quoted: bool, step: bool = True) -> None:
        word = self._word()
        offsets = [self.off(first + k) if step else self.off(first) for k in range(len(chars))]
        if word.parts and isinstance(word.parts[-1], Lit) and word.parts[-1].quoted == quoted:
            word.parts[-1].text += chars
            word.parts[-1].offsets.extend(offsets)
        else:
            word.parts.append(Lit(chars, offsets, quoted))
        word.quoted = word.quoted or quoted

    def _end_word(self) -> None:
        word, self.word = self.word, None
        if word is None:
            return
        if self.heredoc_delimiter:
            self.heredoc_delimiter = False
            self.heredocs.append(("".join(p.text for p in word.parts if isinstance(p, Lit)), self._dash))
            return
        if self.redirect_target:
            self.redirect_target = False
            return
        if word.error and not self.current.error:
            self.current.error, self.current.error_offset = word.error, word.start
        self.current.words.append(word)

    def _end_command(self) -> None:
        self._end_word()
        self.redirect_target = self.heredoc_delimiter = False
        if self.current.words or self.current.error:
            self.commands.append(self.current)
        self.current = SimpleCommand([])

    def _fail(self, message: str) -> None:
        word = self._word()
        word.error = word.error or message

    # -- scanning ------------------------------------------------------------
    def _mark(self) -> None:
        """The current word's span reaches the character just consumed."""
        if self.word is not None and self.i > 0:
            self.word.end = self.off(self.i - 1) + 1

    def run(self) -> list[SimpleCommand]:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            word_char = c not in " \t\r\n|&;()<>" and not (c == "#" and self.word is None)
            if c == "\\":
                if self.i + 1 < n and text[self.i + 1] == "\n":
                    word_char = False  # a line continuation is no part of the word
                    self.i += 2
                elif self.i + 1 < n:
                    self._word()
                    self._lit(text[self.i + 1], self.i + 1, True)
                    self.i += 2
                else:
                    self._lit("\\", self.i, False)
                    self.i += 1
            elif c in " \t\r":
                self._end_word()
                self.i += 1
            elif c == "\n":
                self._end_command()
                self.i += 1
                self._skip_heredocs()
            elif c == "#" and self.word is None:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "'":
                self._single_quote()
            elif c == '"':
                self._double_quote()
            elif c == "$":
                self._dollar(quoted=False)
            elif c == "`":
                self._backtick(quoted=False)
            elif c in "|&;()<>":
                self._operator()
            else:
                self._lit(c, self.i, False)
                self.i += 1
            if word_char:
                self._mark()
        self._end_command()
        return self.commands

    def _single_quote(self) -> None:
        self._word().quoted = True
        end = self.text.find("'", self.i + 1)
        if end < 0:
            self._fail("unterminated single quote")
            end = len(self.text)
        self._lit(self.text[self.i + 1:end], self.i + 1, True)
        self.i = end + 1

    def _double_quote(self) -> None:
        word = self._word()
        word.quoted = True
        text, n = self.text, len(self.text)
        self._lit("", self.i, True)  # "" is an empty word, not no word
        self.i += 1
        while self.i < n and text[self.i] != '"':
            c = text[self.i]
            if c == "\\" and self.i + 1 < n and text[self.i + 1] in '$`"\\\n':
                if text[self.i + 1] != "\n":
                    self._lit(text[self.i + 1], self.i + 1, True)
                self.i += 2
            elif c == "$":
                self._dollar(quoted=True)
            elif c == "`":
                self._backtick(quoted=True)
            else:
                self._lit(c, self.i, True)
                self.i += 1
        if self.i >= n:
            self._fail("unterminated double quote")
        self.i += 1

    def _closing(self, start: int, opening: str, closing: str) -> int:
        """Index of the bracket closing the one before `start`, skipping quotes; -1 if none."""
        depth, i, text = 1, start, self.text
        while i < len(text):
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"":
                end = text.find(c, i + 1)
                if end < 0:
                    return -1
                i = end + 1
                continue
            if c == opening:
                depth += 1
            elif c == closing:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return -1

    def _dollar(self, quoted: bool) -> None:
        text, i = self.text, self.i
        word = self._word()
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if nxt == "{":
            end = self._closing(i + 2, "{", "}")
            if end < 0:
                self._fail("unterminated ${")
                end = len(text)
            body = text[i + 2:end]
            match = _PARAM.match(body)
            source = text[i:end + 1]
            if match and (match.group(2) or not match.group(3)):
                word.parts.append(Param(match.group(1), match.group(2), match.group(3), source, self.off(i), quoted))
            else:
                name = _NAME.search(body)
                word.parts.append(Param(name.group(0) if name else body, None, "", source, self.off(i), quoted, False))
            self.i = end + 1
        elif nxt == "(":
            end = self._closing(i + 2, "(", ")")
            if end < 0:
                self._fail("unterminated $(")
                end = len(text)
            if text.startswith("((", i + 1) and end + 1 < len(text) and text[end + 1] == ")":
                end += 1
            word.parts.append(Subst(text[i:end + 1], self.off(i), quoted))
            self.i = end + 1
        elif nxt == "'" and not quoted:
            self._ansi_c()
        elif nxt == '"' and not quoted:
            self.i = i + 1  # $"..." is a locale-translated "...": same text here
        elif (name := _NAME.match(text, i + 1)) is not None:
            word.parts.append(Param(name.group(0), None, "", text[i:name.end()], self.off(i), quoted))
            self.i = name.end()
        elif nxt and nxt in "0123456789@*#?$!-":
            word.parts.append(Param(nxt, None, "", text[i:i + 2], self.off(i), quoted))
            self.i = i + 2
        else:
            self._lit("$", i, quoted)
            self.i = i + 1

    def _ansi_c(self) -> None:
        text, i = self.text, self.i + 2
        self._word().quoted = True
        out: list[str] = []
        offs: list[int] = []
        while i < len(text) and text[i] != "'":
            if text[i] == "\\" and i + 1 < len(text):
                out.append(_ANSI_C.get(text[i + 1], "\\" + text[i + 1]))
                offs.extend([self.off(i)] * len(out[-1]))
                i += 2
            else:
                out.append(text[i])
                offs.append(self.off(i))
                i += 1
        if i >= len(text):
            self._fail("unterminated $'")
        word = self._word()
        word.parts.append(Lit("".join(out), offs, True))
        self.i = i + 1

    def _backtick(self, quoted: bool) -> None:
        i = self.i + 1
        while i < len(self.text) and self.text[i] != "`":
            i += 2 if self.text[i] == "\\" else 1
        if i >= len(self.text):
            self._fail("unterminated backquote")
        self._word().parts.append(Subst(self.text[self.i:i + 1], self.off(self.i), quoted))
        self.i = i + 1

    def _operator(self) -> None:
        op = next(o for o in _OPERATORS if self.text.startswith(o, self.i))
        if op[0] in "<>" or op.startswith("&>"):
            word = self.word
            literal = word.literal() if word is not None and not word.quoted else None
            if literal is not None and literal.isdigit():
                self.word = None  # the file descriptor number belongs to the redirection
            else:
                self._end_word()
            self._dash = op == "<<-"
            if op in ("<<", "<<-"):
                self.heredoc_delimiter = True
            else:
                self.redirect_target = True
        elif op in _SEPARATORS:
            self._end_command()
        self.i += len(op)

    def _skip_heredocs(self) -> None:
        text = self.text
        for delimiter, dash in self.heredocs:
            while self.i < len(text):
                end = text.find("\n", self.i)
                end = len(text) if end < 0 else end
                line = text[self.i:end]
                self.i = end + 1
                if (line.lstrip("\t") if dash else line) == delimiter:
                    break
        self.heredocs.clear()


def split_commands(text: str, offsets: tuple[int, ...] | None = None) -> list[SimpleCommand]:
    return Lexer(text, offsets).run()
