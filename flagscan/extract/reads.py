"""extract: runtime reads of settings across a whole SGLang tree, cached per file content hash.

Cold analysis: every `.py` file under `sglang/` is prefiltered on its bytes
(rules/reads.toml `prefilter`), the survivors are parsed with `ast`, lowered
to the IR (flagscan/extract/lower.py) and walked in a pool of worker processes;
each file's facts and IR are stored under `<cache>/facts/reads/` and the
ModuleStore's `<cache>/facts/ir/` (flagscan/extract/irstore.py) keyed by
the file's sha256 and flagscan's extractor version, so a neighbouring release
re-parses only the files that changed. A whole-tree index (keyed by the
files' sizes and mtimes) makes a warm run a single file read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flagscan.extract.cache import code_version, write_json
from flagscan.facts.reads import FileFacts

if TYPE_CHECKING:
    from flagscan.extract.reads_walk import Idioms

WORKERS = 2
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")

_Task = tuple[str, str, str, str, str | None]   # root, relpath, digest, role, cache_dir
_Outcome = tuple[str, dict[str, Any] | None, str | None]   # relpath, facts json, parse error
_Progress = Callable[[Iterable[Any], int], Any]


@dataclass(slots=True)
class TreeReads:
    """Facts of every analysed file of one tree."""

    files: dict[str, FileFacts]                      # relpath -> facts (runtime and resolution files)
    roles: dict[str, str]                            # relpath -> runtime | resolution
    skipped: dict[str, str] = field(default_factory=dict)   # relpath -> why it could not be parsed
    parsed: list[str] = field(default_factory=list)  # relpaths parsed in this run (cold work)
    names: dict[str, list[str]] = field(default_factory=dict)  # identifier -> relpaths mentioning it (callers)
    key: str = ""

    def to_json(self) -> dict[str, Any]:
        callees = set(self.names)
        return {"files": {p: f.to_json(callees) for p, f in self.files.items()}, "roles": self.roles,
                "skipped": self.skipped, "names": self.names, "key": self.key}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeReads:
        return cls({p: FileFacts.from_json(f) for p, f in data["files"].items()}, data["roles"],
                   data["skipped"], [], data["names"], data["key"])


def _module_name(relpath: str) -> str:
    name = relpath[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def read_json(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _facts_record(cache_dir: Path | None, digest: str, role: str) -> Path | None:
    if cache_dir is None:
        return None
    return Path(cache_dir) / "facts" / "reads" / code_version() / digest[:2] / f"{digest}-{role}.json"


def _extract_one(task: _Task) -> _Outcome:
    """Worker: (root, relpath, digest, role, cache_dir) -> (relpath, facts json, parse error)."""
    from flagscan.extract.irstore import ir_record, write_ir
    from flagscan.extract.lower import LowerError, lower_source
    from flagscan.extract.reads_walk import Idioms, walk_module

    root, relpath, digest, role, cache = task
    cache_dir = Path(cache) if cache else None
    try:
        source = (Path(root) / relpath).read_bytes().decode("utf-8")
        ir = lower_source(source, _module_name(relpath), relpath, relpath.endswith("__init__.py"))
    except (LowerError, UnicodeDecodeError, OSError) as exc:
        cause: BaseException = exc.__cause__ if isinstance(exc, LowerError) and exc.__cause__ is not None else exc
        reason = f"{type(cause).__name__}: {getattr(cause, 'msg', None) or cause}"
        if isinstance(cause, SyntaxError) and cause.lineno:
            reason += f" (line {cause.lineno})"
        return relpath, None, reason
    record = ir_record(cache_dir, digest)
    if record is not None:
        write_ir(record, ir)
    facts = walk_module(ir, _idioms(Idioms), resolution=role == "resolution").to_json()
    facts_path = _facts_record(cache_dir, digest, role)
    if facts_path is not None:
        write_json(facts_path, facts)
    return relpath, facts, None


_IDIOMS: Idioms | None = None


def _idioms(cls: type[Idioms]) -> Idioms:
    global _IDIOMS
    if _IDIOMS is None:
        _IDIOMS = cls.from_rules()
    return _IDIOMS


def tree_listing(root: Path) -> list[tuple[str, os.stat_result]]:
    base = root / "sglang"
    out: list[tuple[str, os.stat_result]] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                try:
                    out.append((os.path.relpath(full, root).replace(os.sep, "/"), os.stat(full)))
                except OSError:
                    continue
    return out


def load_reads(root: Path, cache_dir: Path | None = None, *, workers: int = WORKERS,
               progress: _Progress | None = None) -> TreeReads:
    """The read facts of the tree under `root` (which contains `sglang/`): those a prefetch
    (`prefetch_reads`) began for the same tree and cache, else read now."""
    pending = _PREFETCHED.get((str(root), str(cache_dir)))
    if pending is None or not pending.ours():
        pending = _Pending(Path(root), cache_dir, workers)
    return pending.finish(progress)


# Begun by this process (its pid) for (root, cache dir); a forked child (lint's workers) takes
# only what was finished before it was forked, never another process's pool.
_PREFETCHED: dict[tuple[str, str], _Pending] = {}
_WANTED: dict[tuple[str, str], tuple[Path, Path | None, int]] = {}


def want_reads(root: Path, cache_dir: Path | None) -> None:
    """This run will need the tree's read facts (a lint with a GPU): once it finds itself cold
    (flagscan.extract.cache.cold_work_ahead), they are parsed in worker processes beside that
    work. Nothing is read here, so a warm run pays nothing."""
    from flagscan.extract.cache import when_cold

    _WANTED[(str(root), str(cache_dir))] = (Path(root), cache_dir, os.getpid())
    when_cold(_begin_wanted)


def _begin_wanted() -> None:
    for key, (root, cache_dir, pid) in list(_WANTED.items()):
        if pid == os.getpid():
            del _WANTED[key]
            if key not in _PREFETCHED:
                _PREFETCHED[key] = _Pending(root, cache_dir, WORKERS)


def reads_in_flight() -> bool:
    """Whether this process has a tree's reads being parsed in the background."""
    return any(p.done is None and p.pid == os.getpid() for p in _PREFETCHED.values())


def settle_reads() -> None:
    """Finish this process's prefetched reads (before it forks workers that need them)."""
    for pending in list(_PREFETCHED.values()):
        if pending.ours():
            pending.finish(None)


class _Pending:
    """One tree's read facts: what the caches hold, taken at once, and the other files handed
    to worker processes (begun here, collected by `finish`)."""

    def __init__(self, root: Path, cache_dir: Path | None, workers: int) -> None:
        from flagscan.extract.reads_walk import Idioms

        self.root, self.cache_dir, self.workers, self.pid = root, cache_dir, workers, os.getpid()
        self.idioms = _idioms(Idioms)
        listing = tree_listing(root)
        h = hashlib.sha256(code_version().encode())
        for rel, st in listing:
            h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        self.key = h.hexdigest()[:32]
        self.index_path = Path(cache_dir) / "facts" / "reads-index" / f"{self.key}.json" if cache_dir is not None else None
        self.done: TreeReads | None = None
        cached = read_json(self.index_path)
        if isinstance(cached, dict) and cached.get("key") == self.key:
            self.done = TreeReads.from_json(cached)
            return
        self.files: dict[str, FileFacts] = {}
        self.roles: dict[str, str] = {}
        self.skipped: dict[str, str] = {}
        self.contents: dict[str, bytes] = {}
        tasks: list[_Task] = []
        for rel, _st in listing:
            role = self.idioms.role(rel)
            if role is None:
                continue
            try:
                data = (root / rel).read_bytes()
            except OSError as exc:
                self.skipped[rel] = f"unreadable: {exc.strerror or exc}"
                continue
            self.contents[rel] = data
            if not any(n in data for n in self.idioms.needles):
                continue
            digest = hashlib.sha256(data).hexdigest()
            self.roles[rel] = role
            hit = read_json(_facts_record(cache_dir, digest, role))
            if isinstance(hit, dict) and "reads" in hit:
                self.files[rel] = FileFacts.from_json(hit)
            else:
                tasks.append((str(root), rel, digest, role, str(cache_dir) if cache_dir is not None else None))
        self.tasks = tasks
        self.started = _start(tasks, workers)

    def ours(self) -> bool:
        """Finished, or begun by this process (a forked child cannot collect its parent's pool)."""
        return self.done is not None or self.pid == os.getpid()

    def finish(self, progress: _Progress | None) -> TreeReads:
        if self.done is not None:
            return self.done
        files, skipped, roles, contents = self.files, self.skipped, self.roles, self.contents
        parsed = _collect(self.tasks, self.started, files, skipped, progress)
        names = _mentions(files, contents, roles)
        # Files that name a function holding a read but mention no setting: parsed too,
        # for their call sites (a re-export or a caller that passes no server args).
        callers = sorted({rel for rels in names.values() for rel in rels if rel not in files and rel not in skipped})
        if callers:
            more: list[_Task] = []
            for rel in callers:
                digest = hashlib.sha256(contents[rel]).hexdigest()
                roles[rel] = self.idioms.role(rel) or "runtime"
                hit = read_json(_facts_record(self.cache_dir, digest, roles[rel]))
                if isinstance(hit, dict) and "reads" in hit:
                    files[rel] = FileFacts.from_json(hit)
                else:
                    more.append((str(self.root), rel, digest, roles[rel],
                                 str(self.cache_dir) if self.cache_dir is not None else None))
            # a few files: no second progress bar
            parsed += _collect(more, _start(more, self.workers), files, skipped, None)
        self.done = TreeReads(files, roles, skipped, parsed, names, self.key)
        if self.index_path is not None:
            write_json(self.index_path, self.done.to_json())
        return self.done


def _start(tasks: list[_Task], workers: int) -> tuple[Any, Iterable[_Outcome]] | None:
    """(the pool, its results in task order) for many tasks, begun now; None: run them in
    this process when collected (a few files, or one worker)."""
    if workers > 1 and len(tasks) > 8:
        import atexit
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor  # multiprocessing: only for a cold read

        # forked (as the other pools): the workers need only flagscan's extractor, already imported
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_behind)
        atexit.register(pool.shutdown, wait=False, cancel_futures=True)  # a run that never collects
        return pool, pool.map(_extract_one, tasks, chunksize=4)
    return None


def _behind() -> None:
    """A read worker runs beside work that is waited on first (a cold lint's resolution and
    startup phase, which the gates come after): it takes the cores that work leaves."""
    try:
        os.nice(10)
    except OSError:
        pass
    from flagscan.extract.cache import no_collector

    no_collector()   # a worker lives for one cold read; its facts are sent back and dropped


def _collect(tasks: list[_Task], started: tuple[Any, Iterable[_Outcome]] | None, files: dict[str, FileFacts],
             skipped: dict[str, str], progress: _Progress | None) -> list[str]:
    if not tasks:
        return []
    parsed: list[str] = []
    if started is not None:
        pool, results = started
        try:
            results = progress(results, len(tasks)) if progress is not None else results
            for rel, facts, error in results:
                _take(rel, facts, error, files, skipped, parsed)
        finally:
            pool.shutdown()
    else:
        serial: Iterable[_Outcome] = map(_extract_one, tasks)
        serial = progress(serial, len(tasks)) if progress is not None else serial
        for rel, facts, error in serial:
            _take(rel, facts, error, files, skipped, parsed)
    return parsed


def _take(rel: str, facts: dict[str, Any] | None, error: str | None, files: dict[str, FileFacts],
          skipped: dict[str, str], parsed: list[str]) -> None:
    if error is not None:
        skipped[rel] = error
        return
    assert facts is not None, "a worker returns facts or a parse error"
    parsed.append(rel)
    files[rel] = FileFacts.from_json(facts)


def _mentions(files: dict[str, FileFacts], contents: dict[str, bytes], roles: dict[str, str]) -> dict[str, list[str]]:
    """For each module-level function holding a read: every runtime file whose bytes name it.

    Caller conditions are used only when every such file was analysed (a caller
    in an unanalysed file could call it unguarded)."""
    wanted: set[str] = set()
    for facts in files.values():
        for read in facts.reads:
            if read.function and "." not in read.function:
                wanted.add(read.function)
    out: dict[str, list[str]] = {name: [] for name in sorted(wanted)}
    if not wanted:
        return out
    encoded = {n.encode(): n for n in wanted}
    for rel, data in contents.items():
        for found in encoded.keys() & set(_IDENT.findall(data)):
            out[encoded[found]].append(rel)
    return out
