"""Neighbours: copies of the deployed configuration side by side against one copy alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import quick_spec
from factories import assert_one_line, ov_tuner

from ov_tuner.analyse.neighbours import neighbours
from ov_tuner.schema import NeighbourPhase
from ov_tuner.workloads.sweep import run_sweep


def test_each_copys_share_is_paired_by_pass() -> None:
    """Two copies that each get half of one alone's FPS and twice its p90, pass after pass, as the host drifts."""
    phases = []
    for r, level in enumerate((100.0, 90.0, 110.0, 95.0)):
        phases += [NeighbourPhase(r, False, (level,), (2.0,)),
                   NeighbourPhase(r, True, (level / 2 * 1.01, level / 2 * 0.99), (4.0, 4.1))]
    n = neighbours(phases)
    assert (n.copies, n.passes) == (2, 4) and n.alone_fps == pytest.approx(98.75)
    first, second = n.each
    assert first.fps_ratio.value == pytest.approx(0.505) and first.fps_ratio.low < 0.505 < first.fps_ratio.high
    assert second.p90_ratio.value == pytest.approx(2.05) and n.total.value == pytest.approx(1.0)
    assert n.total.low < 1 < n.total.high  # the drift falls on both sides of each pair: the interval stays narrow
    assert n.total.high - n.total.low < 0.3


def test_neighbours_runs_copies_of_the_answer_side_by_side(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1, 2)))
    done = ov_tuner("neighbours", str(tiny_model), "--from", str(out), "--neighbours", "2", "--passes", "2",
                    "--seconds", "0.2", "--threads", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(ln.startswith("- 2 copies of CPU fp32 batch 1 1 streams x") and "INFERENCE_NUM_THREADS 1 each" in ln
               for ln in lines), done.stdout
    assert sum(ln.startswith(("- copy 1: ", "- copy 2: ")) and "of alone" in ln for ln in lines) == 2
    assert any(ln.startswith("- all 2 together: ") for ln in lines)


def test_a_missing_model_is_one_line_before_any_copy_starts(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1,)))
    done = ov_tuner("neighbours", str(tmp_path / "missing.xml"), "--from", str(out))
    assert_one_line(done, "missing.xml does not exist")


def test_another_models_results_are_one_line_before_any_copy_starts(swept_db: Path,
                                                                     batch_one_only_model: Path) -> None:
    done = ov_tuner("neighbours", str(batch_one_only_model), "--from", str(swept_db), "--passes", "2",
                    "--seconds", "0.1")
    assert_one_line(done, f"--from {swept_db} was measured on another model", "tiny_conv.xml",
                    "batch_one_only.xml", "ov-tuner sweep")
    assert done.stdout == ""  # no copy started, nothing measured
