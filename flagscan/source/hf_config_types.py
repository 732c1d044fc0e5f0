"""source: the model types a transformers release registers for AutoConfig and the message its
AutoConfig.from_pretrained raises for any other, read from that release's own wheel
(`pip download --no-deps transformers==X`) and kept in the cache as
meta/transformers-VERSION-config-types.json. Where the registry is is rule data
(rules/model_types.toml [registry]); no model type is listed by flagscan."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flagscan.ruledata import load
from flagscan.source.cache import Cache, _read_json, _write_json_atomic

FORMAT = 1
MODEL_TYPE = "\x00model_type\x00"   # where the model type goes in a message template's parts
PIP_TIMEOUT_S = 300
_VERSION = re.compile(r"\d+(\.\d+)*([a-z]+\d+)?(\.post\d+)?(\.dev\d+)?")


@dataclass(frozen=True, slots=True)
class ConfigTypes:
    """What one transformers version's AutoConfig knows: `model_types` (sorted), the message it
    raises for another (literal parts, MODEL_TYPE where the model type goes), and where both
    were read (`origin`: wheel, file and the raise's line)."""

    version: str
    model_types: tuple[str, ...]
    message: tuple[str, ...]
    origin: str

    def knows(self, model_type: str) -> bool:
        return model_type in self.model_types

    def message_for(self, model_type: str) -> str:
        return "".join(model_type if part == MODEL_TYPE else part for part in self.message)

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "model_types": list(self.model_types), "message": list(self.message),
                "origin": self.origin}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConfigTypes:
        return cls(str(data["version"]), tuple(data["model_types"]), tuple(data["message"]), str(data["origin"]))


def _literal_keys(node: ast.AST, name: str, known: list[str] | None) -> list[str] | None:
    """Keys of a table expression: a dict literal, a list/tuple of (key, value) pairs,
    `OrderedDict(<one of those>)` (subscripted or not), `OrderedDict(**{...}, **NAME)`
    (NAME: the keys so far)."""
    if isinstance(node, ast.Name) and node.id == name:
        return known
    func = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) else \
        getattr(node, "func", None)   # `OrderedDict[str, str](...)`
    if isinstance(node, ast.Call) and isinstance(func, ast.Name) and func.id in ("OrderedDict", "dict"):
        if len(node.args) > 1 or any(k.arg is not None for k in node.keywords):
            return None
        out: list[str] = []
        for part in [*node.args, *(k.value for k in node.keywords)]:
            keys = _literal_keys(part, name, known)
            if keys is None:
                return None
            out += keys
        return out
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):   # `**x` inside a dict literal
            return None
        nodes = [k for k in node.keys if k is not None]
    elif isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Tuple) and len(e.elts) == 2 for e in node.elts):
        nodes = [e.elts[0] for e in node.elts if isinstance(e, ast.Tuple)]
    else:
        return None
    names = [k.value for k in nodes if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return names if len(names) == len(nodes) else None


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _registry_keys(read: Any, file: str, name: str, depth: int = 0) -> list[str] | None:
    """The keys module `file` (read through `read(path) -> text | None`) leaves in its global
    `name`: its definition, or an import of it from a sibling module, then the module-level
    `name.update(<table>)` and `name[key] = ...`. Any other module-level statement that may
    change `name` makes the answer None (not known), as does a definition not read."""
    source = read(file)
    if source is None or depth > 3:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    keys: list[str] | None = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue   # a use at call time, not a change at import
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            if node.level != 1 or not node.module or any(a.name != name for a in node.names if (a.asname or a.name) == name):
                return None
            keys = _registry_keys(read, file.rsplit("/", 1)[0] + "/" + node.module.replace(".", "/") + ".py", name,
                                  depth + 1)
            if keys is None:
                return None
            continue
        if not _mentions(node, name):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                if len(targets) != 1 or node.value is None:
                    return None
                keys = _literal_keys(node.value, name, keys)
                if keys is None:
                    return None
                continue
            if len(targets) == 1 and isinstance(targets[0], ast.Subscript) and _mentions(targets[0].value, name):
                key = targets[0].slice
                if not (isinstance(targets[0].value, ast.Name) and isinstance(key, ast.Constant)
                        and isinstance(key.value, str)) or keys is None:
                    return None
                keys = [*keys, key.value]
                continue
            if not any(_mentions(t, name) for t in targets):
                continue   # another global built from it (a read)
            return None
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name)
                and node.value.func.value.id == name and node.value.func.attr == "update"
                and len(node.value.args) == 1 and not node.value.keywords and keys is not None):
            more = _literal_keys(node.value.args[0], name, None)
            if more is None:
                return None
            keys = [*keys, *more]
            continue
        return None   # a statement at import that may change the table in a way not read here
    return keys


def _reads_key(node: ast.AST, key: str) -> bool:
    return any(isinstance(n, ast.Constant) and n.value == key for n in ast.walk(node))


def _message(tree: ast.Module, cls: str, method: str, key: str) -> tuple[tuple[str, ...], int] | None:
    """The `raise ValueError(f"...")` in cls.method whose one formatted value reads `key`:
    its literal parts with MODEL_TYPE in that value's place, and its line."""
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and node.name == cls):
            continue
        for fn in node.body:
            if not (isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == method):
                continue
            for raise_ in (n for n in ast.walk(fn) if isinstance(n, ast.Raise)):
                call = raise_.exc
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "ValueError"
                        and len(call.args) == 1 and isinstance(call.args[0], ast.JoinedStr)):
                    continue
                parts: list[str] = []
                for part in call.args[0].values:
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        parts.append(part.value)
                    elif isinstance(part, ast.FormattedValue) and _reads_key(part.value, key) and MODEL_TYPE not in parts:
                        parts.append(MODEL_TYPE)
                    else:
                        break   # another formatted value: not the model-type message
                else:
                    if MODEL_TYPE in parts:
                        return tuple(parts), raise_.lineno
    return None


def parse(read: Any, where: str, version: str) -> ConfigTypes | None:
    """The registry and message of a transformers tree read through `read(path) -> text | None`
    (paths inside the wheel); None when either is not found where the rules say."""
    rules = load("model_types")["registry"]
    source = read(rules["file"])
    try:
        tree = ast.parse(source) if source is not None else None
    except SyntaxError:
        tree = None
    if tree is None:
        return None
    keys = _registry_keys(read, rules["file"], rules["mapping"])
    found = _message(tree, rules["loader_class"], rules["loader_method"], rules["model_type_key"])
    if not keys or found is None:
        return None
    message, line = found
    return ConfigTypes(version, tuple(sorted(set(keys))), message, f"{where}:{rules['file']}:{line}")


def read_wheel(wheel: Path, version: str) -> ConfigTypes | None:
    import zipfile

    try:
        with zipfile.ZipFile(wheel) as zf:
            def read(path: str) -> str | None:
                try:
                    return zf.read(path).decode("utf-8")
                except (KeyError, UnicodeDecodeError):
                    return None

            return parse(read, wheel.name, version)
    except (OSError, zipfile.BadZipFile):
        return None


def _path(cache: Cache, version: str) -> Path:
    return cache.root / "meta" / f"transformers-{version}-config-types.json"


def _download(version: str, dest: Path) -> Path | str:
    from flagscan.source.pypi import _last_error, _run_pip

    dist = load("model_types")["registry"]["distribution"]
    rc, out = _run_pip(["download", "--no-deps", "--only-binary=:all:", "--dest", str(dest), f"{dist}=={version}",
                        "--progress-bar", "off", "--retries", "1", "--timeout", "15"], PIP_TIMEOUT_S)
    wheels = sorted(dest.glob("*.whl"))
    if rc != 0 or not wheels:
        return f"pip could not download {dist}=={version}: {_last_error(out)}"
    return wheels[0]


def config_types(version: str, cache_dir: Path, *, offline: bool) -> tuple[ConfigTypes | None, str | None]:
    """(what transformers `version` accepts, None), or (None, why it is not known)."""
    if not _VERSION.fullmatch(version):
        return None, f"transformers {version} is not a release version"
    cache = Cache(Path(cache_dir))
    hit = _read_json(_path(cache, version))
    if isinstance(hit, dict) and hit.get("format") == FORMAT:
        found = hit.get("types")
        return (ConfigTypes.from_json(found), None) if isinstance(found, dict) else (None, str(hit.get("why")))
    if offline:
        return None, f"the model types of transformers {version} are not cached (--offline)"
    import tempfile

    cache.tmp.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="transformers-", dir=cache.tmp) as tmp:
        wheel = _download(version, Path(tmp))
        if isinstance(wheel, str):
            return None, wheel   # not kept: the network may come back
        types = read_wheel(wheel, version)
    why = None if types is not None else f"transformers {version}'s wheel has no AutoConfig registry where rules/model_types.toml says"
    _write_json_atomic(_path(cache, version), {"format": FORMAT, "types": types.to_json() if types else None, "why": why})
    return types, why


__all__ = ["MODEL_TYPE", "ConfigTypes", "config_types", "parse", "read_wheel"]
