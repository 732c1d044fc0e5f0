"""evaluate: the facts the analysed code asks about (GPU, environment, model, packages).

What each outside call means is rule data (rules/world.toml); this module gives
those meanings their values from a GPU profile, environment variables and a
model config.
"""

from __future__ import annotations

import json
import math
import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.evaluate.interp.values import (
    Builtin,
    ClassVal,
    ConfigView,
    EnvView,
    External,
    FuncVal,
    GenericAlias,
    Holding,
    LoggerVal,
    Maybe,
    Memo,
    ModuleVal,
    Obj,
    PartialVal,
    Unknown,
    has_unknown,
    unknown_of,
)
from flagscan.hardware import GpuProfile
from flagscan.ruledata import load

if TYPE_CHECKING:
    from flagscan.evaluate.interp.parts import InterpreterParts
    from flagscan.evaluate.interp.state import State

_NOT_HF_CONFIG = ("field", "path", "nvidia-smi", "command", "device properties")  # views that are no transformers config
_REGEX = {"re.match", "re.search", "re.fullmatch", "re.sub", "re.findall", "re.split", "re.compile", "re.escape"}
_PURE_FUNCS: dict[str, Callable[..., Any]] = {
    "json.loads": json.loads, "json.dumps": json.dumps, "math.ceil": math.ceil, "math.floor": math.floor,
    "math.log2": math.log2, "math.sqrt": math.sqrt, "math.gcd": math.gcd, "math.isclose": math.isclose,
    "math.prod": math.prod, "os.path.join": os.path.join, "os.path.basename": os.path.basename,
    "os.path.splitext": os.path.splitext,
}



def _filled(template: str, facts: dict[str, Any]) -> str | None:
    """`template` with the facts it names; None when one of them is not known."""
    names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
    if any(facts.get(n) is None for n in names):
        return None
    return template.format(**facts)


@dataclass
class ModelFacts:
    """A model's config.json (complete), or only its architecture (partial)."""

    config: dict[str, Any] | None
    complete: bool
    origin: str
    directory: Path | None = None

    @property
    def architectures(self) -> list[str] | None:
        if self.config and isinstance(self.config.get("architectures"), list):
            architectures: list[str] = self.config["architectures"]
            return architectures
        return None

    def added_tokens(self) -> dict[str, int] | None:
        """The tokenizer's added tokens (content -> id) from the files beside config.json
        (tokenizer_config.json's `added_tokens_decoder`, else tokenizer.json's `added_tokens`);
        None when neither is there or readable. Read once."""
        if "_added" not in self.__dict__:
            self.__dict__["_added"] = _added_tokens(self.directory) if self.directory is not None else None
        added: dict[str, int] | None = self.__dict__["_added"]
        return added


@dataclass
class World:
    gpu: GpuProfile
    env: dict[str, str] = field(default_factory=dict)
    model: ModelFacts | None = None
    model_path: str | None = None
    used_fallbacks: list[str] = field(default_factory=list)
    # closed: a variable not in `env` is unset (the resolution: SGLang run as given, as
    # a clean systemd service would); open: it is unknown (runtime gates, where the
    # process environment decides whether a read is reached).
    env_open: bool = False
    # what is known of the run's packages (flagscan.evaluate.packages.Packages: the release's
    # pins, --package, the installed environment); None: only rules/world.toml [packages]
    dists: Any = None
    # distribution -> the assumption about it that decided a test ("package:X==1.2 (pinned by ...)")
    package_uses: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rules = load("world")
        self.calls: dict[str, str] = {**rules["torch"], **rules["python"], **rules.get("records", {})}
        self.values: dict[str, str] = rules["values"]
        self.sglang: dict[str, str] = rules["sglang"]
        self.packages: set[str] = set(rules["packages"].get(self.gpu.vendor, []))
        self.distinct: tuple[str, ...] = tuple(rules.get("distinct", {}).get("prefixes", ()))
        self.offline_rule: dict[str, Any] = rules.get("offline", {})

    def distinct_objects(self, a: str, b: str) -> bool:
        """Whether two different dotted paths name different outside objects for certain: both are
        under a prefix whose other names are all given as `same:` in [values] (torch's dtypes)."""
        return a != b and any(a.startswith(p) for p in self.distinct) and any(b.startswith(p) for p in self.distinct)

    # -- SGLang's config classes ---------------------------------------------------
    def config_registry(self, interp: InterpreterParts, state: State) -> dict[str, Any] | None:
        """model_type -> config class, from the release's own registry (None when not found or not
        followed completely: a dict with unknown keys decides nothing)."""
        cache = self.__dict__.setdefault("_config_registry", {})
        if "value" not in cache:
            from flagscan.evaluate.interp.state import OPEN

            found = None
            for dotted in load("world").get("model", {}).get("config_registries", []):
                module_name, _, name = dotted.rpartition(".")
                if not interp.store.module_file(module_name):
                    continue
                module = interp.import_module(module_name, state)
                value = interp.deref(module.globals.get(name), state) if isinstance(module, ModuleVal) else None
                if isinstance(value, dict) and OPEN not in value and all(isinstance(k, str) for k in value):
                    found = value
                break
            cache["value"] = found
        registry: dict[str, Any] | None = cache["value"]
        return registry

    # -- the process environment ------------------------------------------------
    def env_get(self, key: Any, default: Any = None) -> Any:
        if not isinstance(key, str):
            return Unknown("environment variable", {"env"})
        if key in self.env or not self.env_open:
            value = self.env.get(key, default)
            return default if value is None else value   # None: the code removed it
        return Unknown(f"${key}", {f"env:{key}"})

    def env_attr(self, attr: str) -> Any:
        """`os.environ.<attr>` on an open environment: only `.get` can be answered."""
        if attr == "get":
            return Builtin("os.environ.get", lambda interp, state, args, kwargs, module, line:
                           self.env_get(args[0] if args else kwargs.get("key"),
                                        args[1] if len(args) > 1 else kwargs.get("default")))
        return Unknown(f"os.environ.{attr}", {"env"})

    def env_contains(self, key: Any) -> Any:
        if isinstance(key, str) and key in self.env:
            value = self.env[key]
            if isinstance(value, Unknown):   # written or removed on some paths (interp._env_may_hold)
                options = value.options
                if options is not None and None not in options:
                    return True
                return Unknown(f"${key}", {f"env:{key}"})
            return value is not None   # None: the code removed it
        return Unknown(f"${key}" if isinstance(key, str) else "environment variable",
                       {f"env:{key}"} if isinstance(key, str) else {"env"})

    def offline(self) -> Any:
        """Whether the launch turned the outside clients' offline mode on (rules/world.toml
        [offline]): the first of its variables with a value decides; unknown when that value is."""
        rule = self.offline_rule
        for name in rule.get("env", ()):
            value = self.env_get(name)
            if isinstance(value, Unknown):
                return value
            if value:   # unset or empty: the next variable
                return str(value).upper() in rule.get("true", ())
        return False

    def offline_call(self, path: str) -> Any:
        """A call of an offline client (rules/world.toml [offline]) while offline mode is on: a
        client class gives an instance (`huggingface_hub.HfApi()`), whose every method raises, as
        each listed function does. None: not such a call, or offline mode not on for certain."""
        rule = self.offline_rule
        if not rule:
            return None
        clients = rule.get("clients", ())
        of_a_client = any(path.startswith(f"{c}().") for c in clients)
        if path not in clients and not of_a_client and path not in rule.get("calls", ()):
            return None
        if self.offline() is not True:
            return None
        if path in clients:
            return External(f"{path}()")
        from flagscan.evaluate.interp.values import ExcVal, Raised

        exc = rule["exception"]
        return Raised(ExcVal(exc["name"], exc["message"], bases=tuple(exc.get("bases", ()))))

    # -- packages ------------------------------------------------------------------
    def module_present(self, module: str) -> Any:
        """Whether import name `module` is installed: True, False or unknown (needs package:NAME)."""
        dist = module.split(".")[0]
        if self.dists is not None:
            dist, fact = self.dists.module(module)
            if fact is not None:
                self.package_uses[dist] = fact.evidence
                return fact.present
        if module.split(".")[0] in self.packages:
            return True
        return Unknown(f"whether {module} is installed", {f"package:{dist}"})

    def package_version(self, name: Any) -> Any:
        """`importlib.metadata.version(name)`: the version, a PackageNotFoundError, or unknown."""
        from flagscan.evaluate.interp.values import ExcVal, Raised
        from flagscan.source.distmeta import normalise

        if not isinstance(name, str):
            return Unknown("a package version", {"package"})
        fact = self.dists.dist(name) if self.dists is not None else None
        if fact is None:
            return Unknown(f"the version of {name}", {f"package:{normalise(name)}"})
        self.package_uses[fact.name] = fact.evidence
        if not fact.present:
            return Raised(ExcVal("PackageNotFoundError", name))
        if fact.version is None:
            return Unknown(f"the version of {name}", {f"package:{fact.name}"})
        return fact.version

    # -- attribute access on things outside the tree ----------------------------
    def external_attr(self, base: External, attr: str) -> Any:
        path = f"{base.path}.{attr}"
        if path == "os.environ":
            return EnvView(self.env) if self.env_open else self.env
        meaning = self.values.get(path)
        if meaning is not None:
            return self.meaning_value(meaning, path)
        return External(path)

    def external_has(self, base: External, attr: str) -> Any:
        known = load("world").get("attributes", {}).get(base.path)
        if known is not None:
            return attr in known
        return Unknown(f"hasattr({base.path}, {attr!r})")

    def meaning_value(self, meaning: str, path: str) -> Any:
        if meaning.startswith("same:"):   # another name of the object the given path names
            return External(meaning[5:])
        if meaning.startswith("const:"):
            text = meaning[6:]
            return {"false": False, "true": True, "none": None}.get(text, _number(text))
        if meaning.startswith("unknown:"):
            return Unknown(meaning[8:], {f"runtime:{path}"})
        gpu = self.gpu
        if meaning == "gpu.cuda":
            return gpu.cuda
        if meaning == "gpu.hip":
            return gpu.hip
        return Unknown(path)

    # -- calls of things outside the tree ------------------------------------------
    def call_external(self, interp: InterpreterParts, func: External, args: list[Any], kwargs: dict[str, Any],
                      state: State, module: ModuleVal, line: int) -> Any:
        path = func.path
        offline = self.offline_call(path)
        if offline is not None:
            return offline
        meaning = self.calls.get(path)
        if meaning is None:
            tail = path.rsplit(".", 1)[-1]
            if tail in ("lru_cache", "cache", "cached_property"):
                meaning = "decorator"
            elif tail in ("wraps", "contextmanager"):
                meaning = tail
            elif tail == "partial":
                meaning = "partial"
            elif tail == "getLogger":
                meaning = "logger"
        if meaning is None:
            return Unknown(f"{path}(...)", {f"runtime:{path}"})
        gpu = self.gpu
        if meaning.startswith("nvml:"):
            if gpu.vendor != "nvidia":
                from flagscan.evaluate.interp.values import ExcVal, Raised
                return Raised(ExcVal("NVMLError", "NVML Shared Library Not Found"))
            return None if meaning == "nvml:none" else 0
        if meaning.startswith(("const:", "unknown:")):
            return self.meaning_value(meaning, path)
        if meaning == "empty":
            return []
        if meaning == "holds":
            held: list[Any] = [a for a in args if isinstance(a, Obj)]
            for a in args[:1]:
                items = a.values() if isinstance(a, dict) else a if isinstance(a, (list, tuple)) else ()
                held.extend(i.value if isinstance(i, Maybe) else i for i in items)
            return Holding(f"{path}(...)", {f"runtime:{path}"}, tuple(held))
        if meaning == "gpu.present":
            return gpu.vendor in ("nvidia", "amd")
        if meaning == "gpu.capability":
            if path.startswith("pynvml") and gpu.vendor != "nvidia":
                from flagscan.evaluate.interp.values import ExcVal, Raised
                return Raised(ExcVal("NVMLError", "NVML Shared Library Not Found"))
            return tuple(gpu.capability)
        if meaning == "gpu.name":
            return gpu.name if gpu.name is not None else Unknown("GPU name", {"gpu-name"})
        if meaning == "gpu.count":
            return gpu.count
        if meaning == "gpu.bf16":
            return gpu.capability[0] >= 8 or gpu.vendor == "amd"
        if meaning == "gpu.properties":
            props = {"name": gpu.name, "major": gpu.capability[0], "minor": gpu.capability[1],
                     "total_memory": gpu.memory_mib * 2**20 if gpu.memory_mib else None}
            if gpu.arch:
                props["gcnArchName"] = gpu.arch
            return ConfigView({k: v for k, v in props.items() if v is not None}, "device properties")
        if meaning == "env.get":
            key = args[0] if args else kwargs.get("key")
            default = args[1] if len(args) > 1 else kwargs.get("default")
            if isinstance(key, Unknown):
                return Unknown("environment variable", key.needs)
            return self.env_get(key, default)
        if meaning == "partial":
            return PartialVal(args[0], tuple(args[1:]), dict(kwargs)) if args else Unknown("partial()")
        if meaning == "decorator":
            memo = path.rsplit(".", 1)[-1] in ("lru_cache", "cache")

            def apply(fn: Any) -> Any:
                return Memo(fn) if memo and isinstance(fn, (FuncVal, PartialVal)) else fn

            if args and isinstance(args[0], (FuncVal, PartialVal, ClassVal)) and not kwargs:
                return apply(args[0])
            return Builtin("decorator", lambda i, s, a, k, m, l: apply(a[0]) if a else None)
        if meaning == "defaultdict":
            from flagscan.evaluate.interp.builtins_collections import defaultdict
            return defaultdict(interp, state, list(args), dict(kwargs), module, line)
        if meaning in ("wraps", "contextmanager"):
            from flagscan.evaluate.interp.builtins import contextmanager, wraps
            return (wraps if meaning == "wraps" else contextmanager)(args[0] if args else None)
        if meaning == "logger":
            return LoggerVal(str(args[0]) if args else "root")
        if meaning == "log":
            interp.record(state, "log", module, line, level="warning", message=args[0] if args else "")
            return None
        if meaning == "package":
            name = args[0] if args else None
            if not isinstance(name, str):
                return Unknown("package availability")
            found = self.module_present(name)
            if found is True:
                return External(f"spec:{name}")
            if found is False:
                return None   # find_spec of a module that is not installed
            return found
        if meaning == "package.version":
            return self.package_version(args[0] if args else kwargs.get("distribution_name"))
        if meaning == "version.parse":
            text = args[0] if args else kwargs.get("version")
            if isinstance(text, str):
                from packaging.version import InvalidVersion, Version
                try:
                    return Version(text)
                except InvalidVersion:
                    from flagscan.evaluate.interp.values import ExcVal, Raised
                    return Raised(ExcVal("InvalidVersion", f"Invalid version: {text!r}"))
            return unknown_of(text, why=f"{path}(...)")
        if meaning == "pure":
            fn = _PURE_FUNCS.get(path)
            if fn is None or has_unknown(list(args)) or has_unknown(kwargs):
                return unknown_of(*args, why=f"{path}(...)")
            try:
                return fn(*args, **kwargs)
            except Exception:
                return Unknown(f"{path}(...) failed")
        if meaning == "subprocess":
            return self._subprocess(args, kwargs, as_result=True)
        if meaning == "subprocess_output":
            return self._subprocess(args, kwargs, as_result=False)
        if meaning in ("fields", "struct_fields"):
            target = args[0] if args else None
            cls = target.cls if isinstance(target, Obj) else target
            if isinstance(cls, ClassVal):
                return [self._field_info(interp, state, n, spec, path) for n, spec in cls.dataclass_fields()]
            return Unknown(f"{path}(...)")
        if meaning in ("raw_setattr", "raw_getattr"):
            from flagscan.evaluate.interp.expressions import object_method
            name = "__setattr__" if meaning == "raw_setattr" else "__getattribute__"
            return object_method(name)(interp, state, list(args), kwargs, module, line)
        if meaning == "struct_field":
            return ConfigView(dict(kwargs), "msgspec.field")
        if meaning == "defstruct":
            return self._defstruct(interp, state, module, args, kwargs)
        if meaning == "type_hints":
            target = args[0] if args else None
            if isinstance(target, ClassVal):
                return self.type_hints(interp, state, target)
            return Unknown("get_type_hints")
        if meaning == "get_origin":
            alias = args[0] if args else None
            if isinstance(alias, GenericAlias):
                origin = alias.origin
                if isinstance(origin, External) and origin.path == "typing.Optional":
                    return External("typing.Union")
                if isinstance(origin, External) and origin.path in ("typing.List", "typing.Dict", "typing.Set", "typing.Tuple"):
                    return interp.builtins.get(origin.path.split(".")[1].lower())
                return origin
            return None if not isinstance(alias, Unknown) else Unknown("get_origin")
        if meaning == "get_args":
            alias = args[0] if args else None
            if isinstance(alias, GenericAlias):
                if isinstance(alias.origin, External) and alias.origin.path == "typing.Optional":
                    return (alias.args[0], External("builtins.NoneType"))
                return tuple(External("builtins.NoneType") if a is None else a for a in alias.args)
            return () if not isinstance(alias, Unknown) else Unknown("get_args")
        if meaning == "is_dataclass":
            target = args[0] if args else None
            cls = target.cls if isinstance(target, Obj) else target
            return bool(isinstance(cls, ClassVal) and cls.is_dataclass)
        if meaning.startswith("path.") and meaning != "path.object":
            return self._path(meaning[5:], args[0] if args else None)
        if meaning == "view":
            return args[0] if args else {}
        if meaning == "copy":
            value = args[0] if args else None
            return _deepcopy(interp, state, value, {}, deep=path.endswith("deepcopy"))
        if meaning == "regex":
            if has_unknown(list(args)) or has_unknown(kwargs) or not all(isinstance(a, (str, int)) for a in args):
                return unknown_of(*args, why=f"{path}(...)")
            try:
                return getattr(re, path.rsplit(".", 1)[-1])(*args, **kwargs)
            except (re.error, TypeError):
                return Unknown(f"{path}(...) failed")
        if meaning == "path.object":
            return _path_object(args)
        return Unknown(f"{path}(...)")

    def type_hints(self, interp: InterpreterParts, state: State, cls: ClassVal) -> dict[str, Any]:
        """Annotations evaluated in the declaring class's module (typing.get_type_hints)."""
        out: dict[str, Any] = {}
        for name, ann, owner in cls.annotations():
            if name in owner.field_types:
                out[name] = owner.field_types[name]
            elif ann is not None:
                out[name] = interp.eval(ann, state, owner.module)
            else:
                out[name] = Unknown(f"annotation of {name}")
        return out

    def _field_info(self, interp: InterpreterParts, state: State, name: str, spec: Any, path: str) -> ConfigView:
        """msgspec.structs.FieldInfo / dataclasses.Field: name, default, default_factory."""
        missing = External("msgspec.NODEFAULT" if path.startswith("msgspec") else "dataclasses.MISSING")
        info: dict[str, Any] = {"name": name, "default": missing, "default_factory": missing}
        if spec is not None and spec[0] == "value":
            info["default"] = spec[1]
        elif spec is not None and spec[0] == "factory":
            info["default_factory"] = spec[1]
        elif spec is not None and spec[0] == "ir":
            value = interp.eval(spec[1], state, spec[2].module)
            if isinstance(value, ConfigView) and value.origin == "msgspec.field":
                if "default" in value.data:
                    info["default"] = value.data["default"]
                if "default_factory" in value.data:
                    info["default_factory"] = value.data["default_factory"]
            elif spec[1][0] == "call" and spec[1][1][0] in ("n", "a") and (
                    spec[1][1][-1] == "field"):
                for key, expr in spec[1][3]:
                    info[key] = interp.eval(expr, state, spec[2].module)
            else:
                info["default"] = value
        return ConfigView(info, "field")

    def _defstruct(self, interp: InterpreterParts, state: State, module: ModuleVal, args: list[Any],
                   kwargs: dict[str, Any]) -> Any:
        """msgspec.defstruct(name, [(name, type[, default])...], namespace=..., bases=...)."""
        if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], list):
            return Unknown("msgspec.defstruct(...)")
        fields: list[tuple[str, Any]] = []
        types: dict[str, Any] = {}
        for item in args[1]:
            if isinstance(item, str):
                fields.append((item, None))
            elif isinstance(item, (tuple, list)) and item and isinstance(item[0], str):
                if len(item) >= 2:
                    types[item[0]] = item[1]
                if len(item) >= 3:
                    default = item[2]
                    if isinstance(default, ConfigView) and default.origin == "msgspec.field":
                        if "default_factory" in default.data:
                            fields.append((item[0], ("factory", default.data["default_factory"])))
                            continue
                        default = default.data.get("default")
                    fields.append((item[0], ("value", default)))
                else:
                    fields.append((item[0], None))
            else:
                return Unknown("msgspec.defstruct field")
        namespace = kwargs.get("namespace") or {}
        if not isinstance(namespace, dict):
            return Unknown("msgspec.defstruct namespace")
        cls = ClassVal(args[0], module, None, [External("msgspec.Struct")], dict(namespace),
                       is_dataclass=True, value_fields=fields, field_types=types)
        for value in cls.attrs.values():
            if isinstance(value, FuncVal):
                value.owner = cls
        return cls

    def _subprocess(self, args: list[Any], kwargs: dict[str, Any], as_result: bool) -> Any:
        """GPU query commands answered from the GPU profile, as the tools print them
        (rules/world.toml [commands])."""
        cmd = args[0] if args else kwargs.get("args")
        if isinstance(cmd, list) and len(cmd) == 1 and isinstance(cmd[0], str):
            cmd = cmd[0]  # one shell command line
        if isinstance(cmd, str):
            line = self._command_line(cmd)
            if line is not None:
                out = "\n".join([line] * self.gpu.count) + "\n"
                return ConfigView({"returncode": 0, "stdout": out, "stderr": ""}, "command") if as_result else out
            cmd = cmd.split()
        if not isinstance(cmd, list) or not cmd:
            return Unknown("output of a command", {"runtime:subprocess"})
        spec = load("world").get("commands", {}).get(cmd[0])
        if spec is None or "query_option" not in spec or spec["vendor"] != self.gpu.vendor:
            return Unknown("output of a command", {"runtime:subprocess"})
        option = spec["query_option"]
        query = next((c[len(option):] for c in cmd if isinstance(c, str) and c.startswith(option)), None)
        if query is None:
            return Unknown(f"{cmd[0]} output")
        units = not any(isinstance(c, str) and spec["no_units"] in c for c in cmd)
        facts = self._gpu_facts()
        values: list[str | None] = []
        for name in (q.strip() for q in query.split(",")):
            value = _filled(spec["fields"][name], facts) if name in spec["fields"] else None
            values.append(value + spec.get("units", {}).get(name, "") if value is not None and units else value)
        known = [v for v in values if v is not None]
        if len(known) < len(values):
            return Unknown(f"{cmd[0]} {option}{query}", {"gpu-memory"})
        out = "\n".join([spec["separator"].join(known)] * self.gpu.count) + "\n"
        if as_result:
            return ConfigView({"returncode": 0, "stdout": out, "stderr": ""}, cmd[0])
        return out

    def _gpu_facts(self) -> dict[str, Any]:
        """What a command's output template may name (rules/world.toml [commands])."""
        memory = self.gpu.memory_mib or None
        return {"memory_mib": memory, "memory_kib": memory * 1024 if memory else None, "name": self.gpu.name,
                "major": self.gpu.capability[0], "minor": self.gpu.capability[1]}

    def _command_line(self, text: str) -> str | None:
        """The output line of a shell command line that a [commands] entry with a `line` answers."""
        for prefix, spec in load("world").get("commands", {}).items():
            if "line" in spec and text.strip().startswith(prefix):
                return _filled(spec["line"], self._gpu_facts()) if spec["vendor"] == self.gpu.vendor else None
        return None

    def _path(self, kind: str, path: Any) -> Any:
        if not isinstance(path, str):
            return Unknown("filesystem path", {"filesystem"})
        model_dir = self.model.directory if self.model else None
        if self.model_path is not None and path == self.model_path:
            if kind == "isfile":
                return path.endswith(".gguf")
            if model_dir is not None:
                return kind in ("exists", "isdir")
        if model_dir is not None and self.model_path and path.startswith(self.model_path.rstrip("/") + "/"):
            # The model directory given with --model-config stands for the model path:
            # files SGLang looks for next to config.json are looked for there.
            path = str(model_dir / path[len(self.model_path.rstrip("/")) + 1:])
        if model_dir is not None:
            try:
                candidate = Path(path)
                if (candidate.is_absolute() and model_dir in candidate.parents) or candidate == model_dir:
                    return {"exists": candidate.exists(), "isdir": candidate.is_dir(), "isfile": candidate.is_file()}[kind]
            except OSError:
                pass
        return Unknown(f"os.path.{kind}({path})", {"filesystem"})

    def binop(self, op: str, left: Any, right: Any) -> Any:
        """`Path / "name"`; NotImplemented for everything else."""
        if op == "/" and isinstance(left, PathView) and isinstance(right, str):
            return _path_object([str(Path(left.data["_path"]) / right)])   # a Path, as Path.__truediv__ gives
        return NotImplemented

    # -- SGLang functions that stand for given facts ----------------------------------
    def function_override(self, interp: InterpreterParts, fn: FuncVal, args: list[Any], kwargs: dict[str, Any],
                          state: State) -> Any:
        meaning = self.sglang.get(fn.qualname)
        if meaning is None:
            return NotImplemented
        if meaning == "model.hf_config":
            model = self._model_loaded(fn, args, kwargs)
            if isinstance(model, Unknown):
                return model
            if model is None or model.config is None:
                return Unknown("the model's config.json", {"model"})
            from flagscan.evaluate.model_types import apply

            # the pinned transformers may refuse its model_type; a handler that takes the refusal
            # loads a config of its own, which is not config.json as given
            handled = apply(self, interp, fn, args, kwargs, state, model)
            if handled is not None:
                return Unknown(f"the config {fn.qualname.rsplit('.', 1)[-1]}'s handler loads for model type "
                               f"{handled.model_type!r}", {f"runtime:{fn.qualname.rsplit('.', 1)[-1]}"})
            return ConfigView(model.config, model.origin, ) if model.complete else \
                PartialConfig(model.config, model.origin)
        if meaning == "model.tokenizer":
            return self.tokenizer()
        return self.meaning_value(meaning, fn.qualname)

    def tokenizer(self) -> Any:
        """The model's tokenizer as far as its files say: what encodes to one token (an added
        token: transformers never splits one) where tokenizer_config.json or tokenizer.json is
        beside config.json; else a tokenizer not known, a fact of the model."""
        added = self.model.added_tokens() if self.model is not None else None
        if added is None:
            return Unknown("the model's tokenizer", {"model:tokenizer"})
        return TokenizerView({"added_tokens": added}, "tokenizer")

    def _model_loaded(self, fn: FuncVal, args: list[Any], kwargs: dict[str, Any]) -> ModelFacts | Unknown | None:
        """The model whose config a loader call asks for. The config given is the --model-path
        model's; a call naming another path (the draft model of speculative decoding:
        0.5.14 speculative_hook.py `_resolve_speculative_algorithm_alias(...,
        server_args.speculative_draft_model_path)`) gets that model's config.json where this
        machine has it (a directory, the Hugging Face cache), else a config not known."""
        params = fn.ir.get("params") or [("", None, "pos")]
        path = args[0] if args else kwargs.get(params[0][0])   # the loader's first parameter: the model
        if not (isinstance(path, str) and isinstance(self.model_path, str) and path != self.model_path):
            return self.model
        others = self.__dict__.setdefault("_other_models", {})
        if path not in others:
            try:
                found = load_model(None, None, path)
            except ModelError:
                found = None
            others[path] = found if found is not None and found.complete else None
        other: ModelFacts | None = others[path]
        return other if other is not None else Unknown(f"the config.json of {path}", {"model:other"})

    # -- Hugging Face configs ------------------------------------------------------------
    def config_attr(self, view: ConfigView, attr: str) -> Any:
        if isinstance(view, TokenizerView):
            return _tokenizer_attr(view, attr)
        if isinstance(view, PathView) and attr in ("is_file", "is_dir", "exists"):
            kind = {"is_file": "isfile", "is_dir": "isdir", "exists": "exists"}[attr]
            result = self._path(kind, view.data["_path"])
            return Builtin(attr, lambda i, s, a, k, m, l: result)
        if attr in view.data:
            return _wrap(view.data[attr], view, attr)
        alias = self._config_alias(view, attr)
        if alias is not None:
            return alias
        if attr in ("to_dict", "get"):
            data = view.data
            return Builtin(attr, lambda i, s, a, k, m, l: dict(data) if attr == "to_dict" else data.get(*a))
        if attr == "get_text_config" and view.origin not in ("field", "path", "nvidia-smi", "command"):
            # transformers: the text sub-config of a composite model, else the config itself.
            names = load("world").get("model", {}).get("text_configs", [])
            sub = next((view.data[n] for n in names if isinstance(view.data.get(n), dict)), None)
            result = type(view)(sub, view.origin) if sub is not None else view
            return Builtin(attr, lambda i, s, a, k, m, l: result)
        if isinstance(view, PartialConfig):
            return Unknown(f"config.json key {attr}", {"model"})
        if view.origin in ("device properties", "nvidia-smi", "field"):
            return Unknown(f"{view.origin}.{attr}")
        return Unknown(f"config.json has no {attr}", {f"model:{attr}"})

    def config_has(self, view: ConfigView, attr: str) -> Any:
        if isinstance(view, TokenizerView):
            return Unknown(f"hasattr(tokenizer, {attr!r})", {"model:tokenizer"})
        if attr in view.data:
            return True
        alias = self._config_alias(view, attr)
        if alias is not None:
            return True if not isinstance(alias, Unknown) else Unknown(alias.why, alias.needs)
        if attr in ("to_dict", "get", "get_text_config") and view.origin not in ("field", "path", "command"):
            return True
        if isinstance(view, PartialConfig):
            return Unknown(f"config.json key {attr}", {"model"})
        return False

    def _config_alias(self, view: ConfigView, attr: str) -> Any:
        """A transformers config attribute config.json holds under its other name
        (rules/world.toml [model.attribute_aliases]); None when no alias applies."""
        rule = load("world").get("model", {}).get("attribute_aliases", {}).get(attr)
        if rule is None or rule["key"] not in view.data or view.origin in _NOT_HF_CONFIG:
            return None
        fact = self.dists.dist("transformers") if self.dists is not None else None
        if fact is not None and not fact.present:
            return None
        if fact is None or fact.version is None:
            return Unknown(f"config.{attr} (the transformers version decides whether it is {rule['key']})",
                           {"package:transformers"})
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            applies = Version(fact.version) in SpecifierSet(rule["transformers"])
        except InvalidVersion:
            return Unknown(f"config.{attr} (transformers {fact.version})", {"package:transformers"})
        self.package_uses[fact.name] = fact.evidence
        return _wrap(view.data[rule["key"]], view, rule["key"]) if applies else None

    def config_item(self, view: ConfigView, key: Any) -> Any:
        if isinstance(key, str) and key in view.data:
            return _wrap(view.data[key], view, key)
        return Unknown(f"config[{key!r}]", {"model"})


def _path_object(args: list[Any]) -> Any:
    """`pathlib.Path(*args)` (rules/world.toml "path.object"): its name parts, known from the arguments."""
    parts = [a.data["_path"] if isinstance(a, PathView) else a for a in (args or [""])]
    if not all(isinstance(a, str) for a in parts):
        return Unknown("a filesystem path", {"filesystem"})
    p = Path(*parts)
    arg = str(p)
    return PathView({"name": p.name, "suffix": p.suffix, "stem": p.stem, "parts": list(p.parts),
                     "_path": arg}, "path")


def _deepcopy(interp: InterpreterParts, state: State, value: Any, memo: dict[int, Any], deep: bool = True) -> Any:
    """copy.deepcopy / copy.copy over plain values and records on the heap."""
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, Obj):
        new = interp.new_obj(value.cls, state)
        memo[id(value)] = new
        attrs = dict(state.attrs(value.oid))
        if deep:
            attrs = {k: _deepcopy(interp, state, v, memo) for k, v in attrs.items()}
        state.writable(new.oid).update(attrs)
        return new
    if isinstance(value, ConfigView):
        import copy as _copy
        return type(value)(_copy.deepcopy(value.data), value.origin)
    if isinstance(value, list):
        return [_deepcopy(interp, state, v, memo) if deep else v for v in value]
    if isinstance(value, tuple):
        return tuple(_deepcopy(interp, state, v, memo) if deep else v for v in value)
    if isinstance(value, dict):
        return {k: (_deepcopy(interp, state, v, memo) if deep else v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return value


class PartialConfig(ConfigView):
    """Only some keys known (e.g. from --model-arch): a missing key is unknown, not absent."""


class PathView(ConfigView):
    """A pathlib.Path: its name parts are known, the filesystem is asked through World._path."""


class TokenizerView(ConfigView):
    """The model's tokenizer (World.tokenizer): its added tokens known; all else a fact of the model."""


def _tokenizer_attr(view: TokenizerView, attr: str) -> Any:
    """`tokenizer.encode(text, ...)` of an added token's text is its one id (a transformers
    tokenizer never splits an added token, and encode adds no special token with
    add_special_tokens=False); any other text, and any other attribute, is not known."""
    added = view.data["added_tokens"]
    if attr != "encode":
        return Unknown(f"tokenizer.{attr}", {"model:tokenizer"})

    def encode(interp: Any, state: Any, args: list[Any], kwargs: dict[str, Any], module: Any, line: int) -> Any:
        text = args[0] if args else kwargs.get("text")
        plain = kwargs.get("add_special_tokens", True) is False
        if isinstance(text, str) and plain and text in added:
            return [added[text]]
        return Unknown(f"tokenizer.encode({text!r})" if isinstance(text, str) else "tokenizer.encode(...)",
                       {"model:tokenizer"})
    return Builtin("encode", encode)


def _wrap(value: Any, parent: ConfigView, key: str = "") -> Any:
    """Sub-configs that transformers turns into config objects stay config views;
    every other JSON object stays a dict, as in a loaded PretrainedConfig."""
    if isinstance(value, dict) and key in _config_objects():
        cls = PartialConfig if isinstance(parent, PartialConfig) else ConfigView
        return cls(value, parent.origin)
    return value


def _config_objects() -> set[str]:
    return set(load("world").get("model", {}).get("config_objects", []))


def _number(text: str) -> Any:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def load_model(config: str | None, arch: str | None, model_path: str | None) -> ModelFacts | None:
    """config.json from a path or a model directory, the HF cache for --model-path, or an architecture."""
    if config:
        path = Path(config)
        if path.is_dir():
            path = path / "config.json"
        return _read_config(path)
    if model_path:
        local = Path(model_path)
        if (local / "config.json").is_file():
            return _read_config(local / "config.json")
        cached = _hf_cache_config(model_path)
        if cached is not None:
            return _read_config(cached)
    if arch:
        return ModelFacts({"architectures": [arch]}, complete=False, origin=f"--model-arch {arch}")
    return None


def _added_tokens(directory: Path) -> dict[str, int] | None:
    for name, key in (("tokenizer_config.json", "added_tokens_decoder"), ("tokenizer.json", "added_tokens")):
        try:
            data = json.loads((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        entries = data.get(key) if isinstance(data, dict) else None
        if isinstance(entries, dict):   # {"151643": {"content": "<|endoftext|>", ...}, ...}
            out = {e["content"]: int(i) for i, e in entries.items()
                   if isinstance(e, dict) and isinstance(e.get("content"), str) and str(i).isdigit()}
        elif isinstance(entries, list):   # [{"id": 151643, "content": "<|endoftext|>", ...}, ...]
            out = {e["content"]: e["id"] for e in entries
                   if isinstance(e, dict) and isinstance(e.get("content"), str) and isinstance(e.get("id"), int)}
        else:
            continue
        return out
    return None


class ModelError(Exception):
    """A model config that cannot be read; one line, exit 2."""


def _read_config(path: Path) -> ModelFacts:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"cannot read model config {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:   # a ValueError too, without JSONDecodeError's position
        raise ModelError(f"model config {path} is not UTF-8 (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ModelError(f"model config {path} is not JSON ({exc.msg} at line {exc.lineno})") from exc
    except ValueError as exc:   # what json's decoder lets through (an integer of more digits than Python allows)
        raise ModelError(f"model config {path} is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ModelError(f"model config {path} is not a JSON object")
    return ModelFacts(data, complete=True, origin=str(path), directory=path.parent.resolve())


def _hf_cache_config(repo: str) -> Path | None:
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        return None
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    snapshots = home / "hub" / f"models--{repo.replace('/', '--')}" / "snapshots"
    if not snapshots.is_dir():
        return None
    found = sorted(snapshots.glob("*/config.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    return found[0] if found else None
