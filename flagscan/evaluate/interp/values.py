"""evaluate: the abstract values the interpreter computes with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from flagscan.evaluate.interp.parts import InterpreterParts
    from flagscan.evaluate.interp.state import Event, State

    # A builtin's implementation: (the interpreter, the path's state, positional and keyword
    # arguments, the calling module, the line of the call) -> the call's value.
    BuiltinFn = Callable[[InterpreterParts, State, list[Any], dict[str, Any], "ModuleVal", int], Any]


# In `Interpreter.written_anywhere`: an attribute written under a name not known (`setattr(obj, name, v)`),
# so any object may hold any attribute flagscan did not see written.
ANY_ATTRIBUTE = "*"


class Unknown:
    """A value that cannot be known from what was given.

    `why` is the source text (or a description) of what could not be decided,
    `needs` names the facts that would decide it (``model``, ``env:NAME``,
    ``package:flashinfer``...), and `options` the concrete values it may take
    when it comes from joining two paths.
    """

    __slots__ = ("needs", "options", "truth", "why")

    def __init__(self, why: str, needs: frozenset[str] | set[str] | tuple[str, ...] = (),
                 options: tuple[Any, ...] | None = None, truth: bool | None = None) -> None:
        self.why = why
        self.needs = frozenset(needs)
        self.options = options
        self.truth = truth  # known truthiness of an unknown value (`x and False`)

    def __repr__(self) -> str:
        return f"Unknown({self.why!r})"


class Holding(Unknown):
    """An outside container built from known objects (torch's `nn.ModuleList(layers)`): what it
    does is not known, so it is an Unknown everywhere, but it keeps the objects it was given
    (`held`), so that what reaches them through it (the serving phase's model layers) can be found."""

    __slots__ = ("held",)

    def __init__(self, why: str, needs: frozenset[str] | set[str] | tuple[str, ...], held: tuple[Any, ...]) -> None:
        super().__init__(why, needs)
        self.held = held


class Maybe(Unknown):
    """A list element that exists on some paths only (one side of a join appended it)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        super().__init__("an element present on some paths")
        self.value = value


class PartlySet(Unknown):
    """An object's attribute that some of the joined paths set and the others did not: `value` is
    what it holds where set (their join). A plain read gives a plain Unknown (the paths where it is
    not set raise AttributeError, or read the class's attribute); `hasattr` is not known there, and
    `getattr(obj, name, default)` is `value` or `default`."""

    __slots__ = ("value",)

    def __init__(self, why: str, needs: frozenset[str] | set[str] | tuple[str, ...], value: Any) -> None:
        super().__init__(why, needs)
        self.value = value


class Outside(Unknown):
    """A value outside code made that is no object of the model: an attribute that an outside
    base class provides (`ncclUniqueId(ctypes.Structure)`'s field `internal`, which ctypes
    makes from `_fields_`). The model holds no reference to it, and every read of it is
    unknown again, so a write into it changes nothing the model knows and is dropped.

    (Outside code that keeps a model object handed to it and gives it back as such an
    attribute is the one way this could alias: the interpreter's outside boundary already
    takes outside calls not to write the model's objects.)"""

    __slots__ = ()


class Fresh(Unknown):
    """A new list that the expression making it made (`[None] * n` with n not known; a list
    comprehension over values not known), whose length is not known, or another new container
    whose contents are not known (builtins_collections.py: a defaultdict's entries under keys not
    known). A store into it reaches no
    other object the model knows, so it changes nothing known; what is read from it is a plain
    Unknown (its elements may be the model's objects: `[layer] * n`), or `element` where every
    element is known to be like it (outside code's object: `[torch.zeros(...) for _ in
    range(n)]`). A store into it, and a method of it that changes it (`append`), forget `element`."""

    __slots__ = ("element", "known")

    def __init__(self, why: str, needs: frozenset[str] | set[str] | tuple[str, ...] = (), element: Any = None,
                 known: bool = False) -> None:
        super().__init__(why, needs)
        self.element = element
        self.known = known   # whether `element` is what every element is

    def forget(self) -> None:
        self.element, self.known = None, False


class OutsideAttr(Outside):
    """An attribute that an outside base makes on the instance `oid` (None: on one of several):
    outside code's object itself, but what it holds, gives or returns may be the model's objects
    when the instance holds them (torch.nn.Module keeps the submodules analysed code assigned in
    its `_modules`, and `modules()` yields them): expressions.py `derived` decides."""

    __slots__ = ("oid",)

    def __init__(self, why: str, oid: int | None, needs: frozenset[str] | set[str] | tuple[str, ...] = ()) -> None:
        super().__init__(why, needs)
        self.oid = oid


def unknown_of(*values: Any, why: str = "") -> Unknown:
    """An Unknown carrying the needs of every Unknown among `values`."""
    needs: set[str] = set()
    reasons = []
    for v in values:
        if isinstance(v, Unknown):
            needs |= v.needs
            reasons.append(v.why)
    if values and all(type(v) is Outside for v in values):
        return Outside(why or reasons[0], needs)  # computed from outside code's objects alone
    return Unknown(why or (reasons[0] if reasons else "?"), needs)


def has_unknown(value: Any, depth: int = 0) -> bool:
    if isinstance(value, Unknown):
        return True
    if depth > 4:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(has_unknown(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(has_unknown(k, depth + 1) or has_unknown(v, depth + 1) for k, v in value.items())
    return False


@dataclass(eq=False)
class ModuleVal:
    name: str
    globals: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    executed: bool = False


@dataclass(eq=False)
class External:
    """Something outside the analysed tree (torch, transformers, os...): `path` is dotted.

    Two values of one dotted path are the same object (each evaluation of `torch.float16`
    makes a new External), so they are equal and hash alike: `{torch.float16: ...}[dtype]`
    finds the entry. Different paths may still name one object (`torch.float` is
    `torch.float32`): code that must not guess treats a missing path as unknown."""

    path: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, External) and other.path == self.path

    def __hash__(self) -> int:
        return hash(("External", self.path))

    def __repr__(self) -> str:
        return f"<external {self.path}>"


@dataclass(eq=False)
class LazyImport:
    module: str
    attr: str | None


@dataclass(eq=False)
class FuncVal:
    module: ModuleVal
    ir: dict[str, Any]
    closure: dict[str, Any] | None = None
    owner: ClassVal | None = None
    kind: str = "function"  # function | staticmethod | classmethod | property
    # Attributes the analysed code set on the function object (`wrapper.__name__ = ...`,
    # functools.wraps' `__wrapped__`). A function object is made by its `def` and written
    # next to it, so they are not kept per path.
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def qualname(self) -> str:
        owner = f"{self.owner.name}." if self.owner is not None else ""
        return f"{self.module.name}.{owner}{self.ir['name']}"


@dataclass(eq=False)
class GeneratorVal:
    """What a call of a generator function returns: its frame with the arguments bound,
    none of its body run yet (Python runs it when the generator is iterated or, made by
    a `contextlib.contextmanager` function, entered by `with`)."""

    func: FuncVal
    locals: dict[str, Any]
    context: bool = False


@dataclass(eq=False)
class ContextManagerFn:
    """`contextlib.contextmanager(f)`: calling it makes f's generator, entered by `with`."""

    func: Any


@dataclass(eq=False)
class LambdaVal:
    module: ModuleVal
    params: list[Any]
    body: Any
    closure: dict[str, Any]


@dataclass(eq=False)
class BoundMethod:
    func: Any
    self_obj: Any


@dataclass(eq=False)
class PartialVal:
    func: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@dataclass(eq=False)
class ClassVal:
    name: str
    module: ModuleVal
    ir: dict[str, Any] | None
    bases: list[Any]
    attrs: dict[str, Any] = field(default_factory=dict)
    is_dataclass: bool = False
    is_namedtuple: bool = False   # a typing.NamedTuple: a record built without analysed code
    is_enum: bool = False
    # Fields of a record built at run time (msgspec.defstruct): (name, spec).
    value_fields: list[tuple[str, Any]] | None = None
    field_types: dict[str, Any] = field(default_factory=dict)

    def mro(self) -> list[ClassVal]:
        out: list[ClassVal] = [self]
        for base in self.bases:
            if isinstance(base, ClassVal):
                for c in base.mro():
                    if c not in out:
                        out.append(c)
        return out

    def has_outside_base(self) -> bool:
        """Whether a class outside the tree (not `object`) is among the bases of this class or of its bases."""
        return any(isinstance(b, External) and b.path != "builtins.object" for c in self.mro() for b in c.bases)

    def lookup(self, name: str) -> tuple[bool, Any]:
        for cls in self.mro():
            if name in cls.attrs:
                return True, cls.attrs[name]
        return False, None

    def dataclass_fields(self) -> list[tuple[str, Any]]:
        """(name, spec) for every field, bases first (dataclass order). spec is
        ("ir", expr, class) for a declared default, ("value", v) / ("factory", f)
        for a record built at run time, or None without a default."""
        out: dict[str, Any] = {}
        for cls in reversed(self.mro()):
            if cls.value_fields is not None:
                for name, spec in cls.value_fields:
                    out[name] = spec
            elif cls.ir is not None and (cls.is_dataclass or cls is self):
                for name, default, *_ in cls.ir.get("fields", []):
                    out[name] = ("ir", default, cls) if default is not None else None
        return list(out.items())

    def annotations(self) -> list[tuple[str, Any, ClassVal]]:
        """(name, annotation IR or None, declaring class), bases first."""
        out: dict[str, Any] = {}
        for cls in reversed(self.mro()):
            if cls.value_fields is not None:
                for name, _ in cls.value_fields:
                    out.setdefault(name, (None, cls))
            elif cls.ir is not None:
                for name, _default, *ann in cls.ir.get("fields", []):
                    out[name] = (ann[0] if ann else None, cls)
        return [(n, a, c) for n, (a, c) in out.items()]

    def __repr__(self) -> str:
        return f"<class {self.module.name}.{self.name}>"


@dataclass(eq=False)
class Obj:
    """An instance; its attributes live in the state's heap under `oid`."""

    cls: ClassVal
    oid: int

    def __repr__(self) -> str:
        return f"<{self.cls.name} #{self.oid}>"


@dataclass(frozen=True)
class EnumMember:
    owner: str
    name: str
    value: Any
    cls: Any = field(default=None, compare=False, hash=False)


def mixin_of_enum(cls: Any) -> type | None:
    """int or str where an enum class's members are ints or strings (IntEnum, IntFlag, StrEnum,
    or `int`/`str` among its bases); None for a plain Enum."""
    if not isinstance(cls, ClassVal):
        return None
    for c in cls.mro():
        for b in c.bases:
            tail = b.path.rsplit(".", 1)[-1] if isinstance(b, External) else getattr(b, "name", "")
            if tail in ("IntEnum", "IntFlag", "int"):
                return int
            if tail in ("StrEnum", "str"):
                return str
    return None


@dataclass(eq=False)
class ExcVal:
    type_name: str
    message: Any
    cls: Any = None
    # an outside exception's base classes by name (no ClassVal of the tree says them):
    # `except OSError` catches huggingface_hub's OfflineModeIsEnabled, a ConnectionError
    bases: tuple[str, ...] = ()


@dataclass(eq=False)
class SuperVal:
    """super() inside a method: attribute lookup continues after `after` in obj's MRO."""

    classes: list[ClassVal]
    obj: Any


@dataclass(eq=False)
class Raised:
    """What an outside call does when it raises (NVML on a machine without NVIDIA GPUs)."""

    exc: ExcVal


@dataclass(eq=False)
class ConfigView:
    """A Hugging Face config (config.json) seen through attribute access."""

    data: dict[str, Any]
    origin: str

    def __repr__(self) -> str:
        return f"<config {self.origin}>"


@dataclass(eq=False)
class EnvView:
    """`os.environ` when the environment is open: the given variables, every other one unknown."""

    data: dict[str, str]

    def __repr__(self) -> str:
        return "<os.environ>"


@dataclass(eq=False)
class GenericAlias:
    """`Optional[int]`, `A[str, Arg(...)]`, `list[int]`: an origin and its arguments."""

    origin: Any
    args: tuple[Any, ...]


@dataclass(eq=False)
class Memo:
    """A function under functools.cache / lru_cache: same arguments, same result.
    `cache`: key -> (result, the "read" events computing it made, replayed on each hit)."""

    func: Any
    cache: dict[tuple[object, ...], tuple[Any, tuple[Event, ...]]] = field(default_factory=dict)


@dataclass(eq=False)
class LoggerVal:
    """`logging.getLogger(name)`: its methods log; its other attributes are logging's state."""

    name: str

    @property
    def path(self) -> str:
        return f"logging.getLogger({self.name!r})"


@dataclass(eq=False)
class Builtin:
    name: str
    fn: BuiltinFn


def element_of(iterable: Any, text: str) -> Unknown:
    """An element of an iterable not known; of one of several known sequences, one of their elements."""
    if isinstance(iterable, Unknown) and iterable.options and all(
            isinstance(o, (list, tuple)) or o is None for o in iterable.options):
        elements: list[Any] = []
        for o in iterable.options:
            for e in o or ():
                if not any(e is x for x in elements):
                    elements.append(e)
        if 0 < len(elements) <= 128:
            return Unknown(f"element of {text}", iterable.needs, tuple(elements))
    if type(iterable) is Outside:
        return Outside(f"element of {text}", iterable.needs)  # what outside code's object yields
    return Unknown(f"element of {text}", iterable.needs if isinstance(iterable, Unknown) else frozenset())
