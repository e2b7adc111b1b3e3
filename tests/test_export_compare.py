"""Data out (CSV, JSON, SVG figures) and two results files side by side."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import quick_spec
from typer.testing import CliRunner

from ov_tuner.analyse.compare import compare
from ov_tuner.cli import app
from ov_tuner.errors import BadInputError
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep

runner = CliRunner()


def read_csv(path: Path) -> list[dict[str, object]]:
    """With pandas where the test environment has it (what users load exports with), else the csv module."""
    try:
        import pandas
    except ImportError:
        with path.open(newline="") as f:
            return list(csv.DictReader(f))
    return list(pandas.read_csv(path).to_dict("records"))


def test_csv_export_has_one_row_per_stored_point_with_its_figures(swept_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "points.csv"
    result = runner.invoke(app, ["export", str(swept_db), "--format", "csv", "-o", str(out)])
    assert result.exit_code == 0, result.output
    stored = load_results(swept_db)
    rows = read_csv(out)
    assert len(rows) == len(stored.points) == 16
    by_config = {(r["precision"], int(str(r["batch"])), int(str(r["streams"])), int(str(r["nireq"]))): r
                 for r in rows}
    for p in stored.points:
        row = by_config[(p.config.precision.value, p.config.batch, p.config.streams, p.config.nireq)]
        assert float(str(row["fps"])) == pytest.approx(p.fps, rel=1e-9)
        assert float(str(row["latency_p90_ms"])) == pytest.approx(p.latency_ms(90), rel=1e-9)
        assert row["status"] == "ok" and row["model_sha256"] == stored.environment.model_sha256


def test_json_export_nests_the_environment_and_carries_latencies_when_asked(swept_db: Path) -> None:
    plain = json.loads(runner.invoke(app, ["export", str(swept_db), "--format", "json"]).stdout)
    full = json.loads(runner.invoke(app, ["export", str(swept_db), "--format", "json", "--with-latencies"]).stdout)
    stored = load_results(swept_db)
    assert plain["environment"]["model_sha256"] == stored.environment.model_sha256
    assert len(plain["points"]) == len(stored.points) and "latencies_ms" not in plain["points"][0]
    assert [len(p["latencies_ms"]) for p in full["points"]] == [p.measurement.latencies_ms.size  # type: ignore[union-attr]
                                                                for p in stored.points]


def test_figures_come_as_svg_for_reports(swept_db: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["plot", str(swept_db), "--out-dir", str(tmp_path), "--format", "svg"])
    assert result.exit_code == 0, result.output
    figures = sorted(tmp_path.iterdir())
    assert figures and all(f.suffix == ".svg" and "<svg" in f.read_text()[:2000] for f in figures)


@pytest.fixture(scope="module")
def two_grids(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sweeps of the same model whose grids overlap in 1 x 1 and 1 x 2."""
    folder = tmp_path_factory.mktemp("compare")
    a, b = folder / "a.db", folder / "b.db"
    run_sweep(quick_spec(tiny_model, a, streams=(1, 2), nireq=(1, 2)))
    run_sweep(quick_spec(tiny_model, b, streams=(1,), nireq=(1, 2, 4)))
    return a, b


def test_compare_matches_the_overlap_and_lists_the_rest(two_grids: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = (load_results(p) for p in two_grids)
    comparison = compare([a, b])
    assert [(m.config.streams, m.config.nireq) for m in comparison.matched] == [(1, 1), (1, 2)]
    assert sorted((i, c.streams, c.nireq) for i, c in comparison.only_in) == [(0, 2, 1), (0, 2, 2), (1, 1, 4)]
    for m in comparison.matched:
        assert m.fps_ratios()[1] == pytest.approx(m.points[1].fps / m.points[0].fps)
    assert {(x.file, x.other) for x in comparison.bests} == {(0, 1), (1, 0)}
    result = runner.invoke(app, ["compare", *map(str, two_grids), "--out-dir", str(tmp_path), "--format", "svg"])
    assert result.exit_code == 0, result.output
    assert "only in file 2: CPU fp32 batch 1 1 streams x 4 requests" in result.stdout
    assert (tmp_path / "compare.svg").is_file()
    report = runner.invoke(app, ["report", *map(str, two_grids), "--out-dir", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert "The same configurations in every file" in (tmp_path / "report" / "report.html").read_text()


def test_files_of_different_models_are_compared_only_when_told(two_grids: tuple[Path, Path], tmp_path: Path) -> None:
    other = tmp_path / "other_model.db"
    other.write_bytes(two_grids[1].read_bytes())
    with sqlite3.connect(other) as db:
        env = json.loads(db.execute("SELECT value FROM meta WHERE key = 'environment'").fetchone()[0])
        env.update(model_sha256="0" * 64, model_name="another_model")
        db.execute("UPDATE meta SET value = ? WHERE key = 'environment'", (json.dumps(env),))
    files = [load_results(two_grids[0]), load_results(other)]
    with pytest.raises(BadInputError, match="different models"):
        compare(files)
    assert ("model_name", ("tiny_conv", "another_model")) in compare(files, models_differ=True).differences
    refused = runner.invoke(app, ["compare", str(two_grids[0]), str(other)])
    assert refused.exit_code == 2 and "add --models-differ" in refused.stderr
