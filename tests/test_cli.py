"""The command line: every bad input gets one clear line and a non-zero exit, and stored results survive."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from matplotlib.image import imread
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.commandline.app import EXIT_BAD_INPUT
from ov_tuner.devices.box import read_box
from ov_tuner.devices.runtime import Runtime
from ov_tuner.present.words.box import cpu_list

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def assert_one_line_error(code: int, stderr: str, *fragments: str) -> None:
    assert code != 0
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines and lines[0].startswith("error:"), stderr
    assert "Traceback" not in stderr
    joined = " ".join(ln.strip() for ln in lines)  # rich wraps long lines for narrow terminals
    for fragment in fragments:
        assert fragment in joined, joined


def sweep_args(model: Path, out: Path, *extra: str) -> list[str]:
    return ["sweep", str(model), "--out", str(out), "--seconds", "0.1", "--warmup", "0.02", "--precision", "fp32",
            "--streams", "1", "--nireq", "1", "--no-baselines", *extra]


@pytest.fixture
def stored_copy(swept_db: Path, tmp_path: Path) -> Path:
    """A results file that already holds measured points, to check that bad input never harms it."""
    copy = tmp_path / "kept.db"
    copy.write_bytes(swept_db.read_bytes())
    return copy


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the CLI with the words that call it, groups (those with commands of their own) looked into."""
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


# Names the glossary's "one name per thing" retired: a round's repetitions are passes (--passes), how long a command
# measures is --seconds (sweep's --max-seconds), never --time or --minutes, precisions are --precision, and a folder
# is --out-dir.
RETIRED = ("--rounds", "--confirm-rounds", "--time", "--max-time", "--minutes", "--precision-hint", "--plot-dir",
           "--report")


def test_no_command_offers_or_mentions_a_retired_flag() -> None:
    """Every command counts a round's passes with --passes and measures for --seconds: none offers a flag by an old
    name, and no help text names one."""
    retired = re.compile("|".join(rf"{flag}(?![\w-])" for flag in RETIRED))
    counts_passes, measures_seconds = set(), set()
    for path, command in commands(typer.main.get_command(app)):
        offered = {flag for param in command.params for flag in (*param.opts, *param.secondary_opts)}
        assert not offered & set(RETIRED), f"ov-tuner {' '.join(path)} offers {sorted(offered & set(RETIRED))}"
        if "--passes" in offered:
            counts_passes.add(" ".join(path))
        if "--seconds" in offered:
            measures_seconds.add(" ".join(path))
        shown = runner.invoke(app, [*path, "--help"], terminal_width=250)
        assert shown.exit_code == 0, shown.output
        assert not retired.search(shown.output), f"ov-tuner {' '.join(path)} --help: {shown.output}"
    assert counts_passes == {"sweep", "fleet sweep", "pipeline", "llm", "neighbours"}
    assert measures_seconds == {"sweep", "fleet sweep", "profile", "capacity", "soak", "pipeline", "llm", "neighbours"}


@pytest.mark.parametrize(("command", "given", "said"), [
    ("sweep", "--time soon", "--seconds: 'soon' is neither a number"),
    ("fleet sweep", "--max-time=0.01", "Invalid value for '--max-seconds'"),
    ("sweep", "--confirm-rounds 1", "Invalid value for '--passes'"),
    ("profile", "--time 0.01", "Invalid value for '--seconds'"),
    ("soak", "--minutes 0.001", "Invalid value for '--seconds'"),  # 0.06 s: below the least, 0.6
    ("neighbours", "--rounds 1", "Invalid value for '--passes'"),
    ("pipeline", "--rounds 1", "--passes 1 gives no interval"),
    ("llm", "--rounds 1", "--passes 1 gives no interval"),
    ("llm", "--precision-hint f32 --passes 1", "--passes 1 gives no interval"),
    ("plot", "-o plots", "results file model.file does not exist"),  # a folder is --out-dir; -o a file
    ("pipeline", "--report out --passes 1", "--passes 1 gives no interval"),
    ("capacity", "--plot-dir out --cameras 0", "Invalid value for '--cameras'"),
])
def test_a_renamed_flag_works_for_a_release_under_its_successor_and_names_it(command: str, given: str,
                                                                             said: str) -> None:
    """Each value reaches the successor's own check (minutes as seconds), which is what the command then says."""
    from ov_tuner.commandline.renamed import RENAMED, successors

    old = given.split(" ")[0].split("=")[0]
    code, _, err = run(*command.split(" "), "model.file", *given.split(" "))
    new = RENAMED[command][old].successor
    assert code != 0 and said in err
    assert f"ov-tuner {command}: {old} is now {new}" in err and f"{old} goes in the next release" in err
    if old == "--minutes":
        assert "(--minutes 0.001 is --seconds 0.06)" in err
    assert successors(command, ["--", old])[0] == ["--", old]  # nothing after -- is a flag


def test_missing_model(tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(tmp_path / "absent.xml", tmp_path / "r.db"))
    assert code == EXIT_BAD_INPUT
    assert_one_line_error(code, err, "absent.xml does not exist")
    assert not (tmp_path / "r.db").exists()


def test_a_folder_given_as_the_model(tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(tmp_path, tmp_path / "r.db"))
    assert_one_line_error(code, err, "is a folder; give the model file itself")


@pytest.mark.parametrize("content", [b"<net>broken", b"\x00\x01binary", b""])
def test_a_file_that_is_not_a_model(tmp_path: Path, content: bytes) -> None:
    bogus = tmp_path / "bogus.xml"
    bogus.write_bytes(content)
    code, _, err = run(*sweep_args(bogus, tmp_path / "r.db"))
    assert_one_line_error(code, err, "is not a model OpenVINO can read")


def test_unknown_device(tiny_model: Path, tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(tiny_model, tmp_path / "r.db", "--device", "TPU"))
    assert_one_line_error(code, err, "device TPU is not present on this machine; present: CPU")


def test_absent_accelerator_lists_what_is_present(tiny_model: Path, tmp_path: Path) -> None:
    present = " ".join(Runtime().available_devices())
    absent = next(d for d in ("GPU", "NPU", "HDDL") if d not in present)  # GPU on machines without one
    code, _, err = run(*sweep_args(tiny_model, tmp_path / "r.db", "--device", f"CPU,{absent}"))
    assert_one_line_error(code, err, f"device {absent} is not present", "present: CPU", "ov-tuner devices")


@pytest.mark.parametrize(("flag", "value"), [("--streams", "0"), ("--nireq", "-2"), ("--batch", "x"),
                                             ("--nireq", "1,0"), ("--precision", "int4")])
def test_bad_grid_values(tiny_model: Path, tmp_path: Path, flag: str, value: str) -> None:
    code, _, err = run(*sweep_args(tiny_model, tmp_path / "r.db"), flag, value)
    assert_one_line_error(code, err, flag)


def test_non_positive_seconds_are_refused(tiny_model: Path, tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(tiny_model, tmp_path / "r.db"), "--seconds", "0")
    assert code == 2 and "--seconds" in err and "Traceback" not in err


def test_dynamic_model_without_shape(spatially_dynamic_model: Path, tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(spatially_dynamic_model, tmp_path / "r.db"))
    assert_one_line_error(code, err, "image[1,3,?,?] has dynamic dimensions", "--shape")


def test_dynamic_model_with_shape_runs(spatially_dynamic_model: Path, tmp_path: Path) -> None:
    code, out, err = run(*sweep_args(spatially_dynamic_model, tmp_path / "r.db", "--shape", "[1,3,32,32]"))
    assert code == 0, err
    assert "1 points measured, 0 failed" in out


def test_batch_the_model_cannot_take(batch_one_only_model: Path, tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(batch_one_only_model, tmp_path / "r.db", "--batch", "1,4"))
    assert_one_line_error(code, err, "cannot take input x[4,8,4,4]", "sweep --batch 1")
    assert not (tmp_path / "r.db").exists()  # refused before anything was measured


def test_output_folder_that_does_not_exist(tiny_model: Path, tmp_path: Path) -> None:
    code, _, err = run(*sweep_args(tiny_model, tmp_path / "no" / "such" / "r.db"))
    assert_one_line_error(code, err, "folder", "does not exist")


def test_bad_input_leaves_stored_results_untouched(tiny_model: Path, stored_copy: Path) -> None:
    before = digest(stored_copy)
    for extra in (["--device", "TPU"], ["--streams", "0"], ["--batch", "x"]):
        code, _, err = run(*sweep_args(tiny_model, stored_copy, *extra))
        assert_one_line_error(code, err)
    assert digest(stored_copy) == before


def test_results_of_another_model_are_refused(batch_one_only_model: Path, stored_copy: Path) -> None:
    before = digest(stored_copy)
    code, _, err = run(*sweep_args(batch_one_only_model, stored_copy))
    assert_one_line_error(code, err, "holds results measured elsewhere", "new --out file")
    assert digest(stored_copy) == before


def test_out_that_is_not_a_results_file_is_not_overwritten(tiny_model: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n" * 100)
    code, _, err = run(*sweep_args(tiny_model, notes))
    assert_one_line_error(code, err, "is not an ov-tuner results file")
    assert notes.read_text() == "my notes, not a database\n" * 100


def test_show_and_plot_on_a_missing_file(tmp_path: Path) -> None:
    for command in ("show", "plot"):
        code, _, err = run(command, str(tmp_path / "none.db"))
        assert_one_line_error(code, err, "does not exist", "ov-tuner sweep")


def test_show_prints_every_point_the_best_and_diagnostics(swept_db: Path) -> None:
    code, out, _ = run("show", str(swept_db))
    assert code == 0
    rows = [ln for ln in out.splitlines() if ln.startswith("│ CPU")]
    assert len(rows) == 16 + 2  # every point, then the best per precision
    assert "Best throughput per device and precision" in out
    assert "fewer requests than streams" in out  # 2 streams x 1 request cells
    assert "16 points measured: 16 ran for a fixed time" in out


def test_devices_lists_cpu_properties_and_the_box() -> None:
    code, out, _ = run("devices")
    assert code == 0
    assert "CPU" in out and "streams range" in out
    box = read_box()
    line = next(ln for ln in out.splitlines() if ln.startswith("box: "))
    assert f"cpuset {cpu_list(box.cpuset)}" in line and ("no quota" in line) == (box.quota_cpus is None)


def test_plot_writes_heatmaps_and_comparison_figures(swept_db: Path, tmp_path: Path) -> None:
    code, out, _ = run("plot", str(swept_db), "--out-dir", str(tmp_path / "plots"))
    assert code == 0
    written = sorted((tmp_path / "plots").glob("*.png"))
    assert [p.name for p in written] == ["batch.png", "heatmap_CPU_fp16_b1.png", "heatmap_CPU_fp16_b2.png",
                                         "heatmap_CPU_fp32_b1.png", "heatmap_CPU_fp32_b2.png", "pareto.png",
                                         "precision_CPU_b1.png", "precision_CPU_b2.png"]
    assert out.count("wrote ") == 8
    for path in written:
        pixels = imread(path)
        assert pixels.shape[0] > 300 and pixels.shape[1] > 800
        assert pixels[..., :3].std() > 0.1  # drawn, not blank
