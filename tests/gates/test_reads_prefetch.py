"""A cold lint with a GPU begins the tree's parse in the background at its first cache miss
(flagscan.extract.reads.want_reads, flagscan.extract.cache.cold_work_ahead): the reads it
collects are those of a plain load, a warm run begins nothing, and a forked child never
collects its parent's pool."""

from __future__ import annotations

import os

from click.testing import CliRunner

import flagscan.extract.cache as fcache
import flagscan.extract.reads as reads
from flagscan.cli import main
from tests.conftest import ROOT

TREE = ROOT / "fixtures" / "trees" / "lint"
UNIT = ROOT / "fixtures" / "units" / "sglang-qwen.service"


def _facts(tree_reads: reads.TreeReads) -> dict:
    return {"files": {p: f.to_json(set(tree_reads.names)) for p, f in tree_reads.files.items()},
            "skipped": tree_reads.skipped, "names": tree_reads.names}


def test_prefetched_reads_are_the_plain_loads(tmp_path) -> None:
    plain = reads.load_reads(TREE, tmp_path / "a", workers=1)
    assert plain.files, "the fixture tree has reads"
    key = (str(TREE), str(tmp_path / "b"))
    reads.want_reads(TREE, tmp_path / "b")
    assert key not in reads._PREFETCHED          # wanted only: nothing read until the run is cold
    fcache.cold_work_ahead()
    assert reads._PREFETCHED[key].done is None and reads.reads_in_flight()
    fetched = reads.load_reads(TREE, tmp_path / "b")
    assert reads._PREFETCHED[key].done is fetched
    assert _facts(fetched) == _facts(plain)
    assert fetched.parsed                        # parsed by the prefetch, not read back from a cache


def test_a_forked_child_does_not_collect_its_parents_pending_parse(tmp_path) -> None:
    reads.want_reads(TREE, tmp_path / "c")
    fcache.cold_work_ahead()
    pid = os.fork()
    if pid == 0:  # the child: its own load (the parent's pool is not its own), then out
        ok = not reads.reads_in_flight() and bool(reads.load_reads(TREE, tmp_path / "c", workers=1).files)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert reads.load_reads(TREE, tmp_path / "c").files


def test_a_cold_lint_begins_the_parse_and_a_warm_one_does_not(tmp_path, monkeypatch) -> None:
    begun: list[str] = []
    real = reads._Pending.__init__

    def counting(self, root, cache_dir, workers):
        begun.append(str(root))
        real(self, root, cache_dir, workers)

    monkeypatch.setattr(reads._Pending, "__init__", counting)
    args = ["-q", "--sglang", str(TREE), "--cache-dir", str(tmp_path / "cache"), "lint", "--gpu", "h200",
            "--format", "json", str(UNIT)]
    cold = CliRunner().invoke(main, args)
    assert cold.exit_code in (0, 1), cold.output
    assert begun == [str(TREE)]  # once: begun at the first miss, collected by the gates
    begun.clear()
    from flagscan.evaluate.gates import cache as gates_cache

    gates_cache.forget()
    warm = CliRunner().invoke(main, args)
    assert (warm.exit_code, warm.output) == (cold.exit_code, cold.output)
    assert begun == []
