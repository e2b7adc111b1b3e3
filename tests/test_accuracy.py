"""What a precision costs in output quality: the comparison on known numbers, and on the real runtime against the
FP32 reference (CPU, f32 hint)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as ops8
import pytest
from conftest import quick_spec
from typer.testing import CliRunner

from ov_tuner.analyse.accuracy import AccuracyLimit, compare_output, excluded
from ov_tuner.cli import app
from ov_tuner.commandline.inputs import said
from ov_tuner.errors import BadInputError
from ov_tuner.model.outputs import class_score_outputs
from ov_tuner.model.zoo import zoo_model
from ov_tuner.schema import Precision
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.words.accuracy import breach_reason


def test_figures_on_known_numbers() -> None:
    ref = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]], dtype=np.float32)
    same = compare_output("p", ref, ref.copy(), class_scores=True)
    assert (same.max_abs, same.cosine, same.top1, same.max_rel) == (0.0, 1.0, 1.0, 0.0)
    first_row_swapped = ref.copy()
    first_row_swapped[0] = [0.1, 0.2, 0.7]
    swapped = compare_output("p", ref, first_row_swapped, class_scores=True)
    assert swapped.top1 == 0.5 and swapped.cosine is not None and swapped.cosine < 0.9  # the least over inputs
    assert swapped.max_abs == pytest.approx(0.6, abs=1e-6)
    tiny = np.array([[1.0, 1e-9]]), np.array([[1.0, 2e-9]])  # a relative error near zero means nothing
    assert compare_output("t", *tiny, class_scores=False).max_rel == 0.0
    ints = compare_output("ids", np.array([[1, 2, 3, 4]]), np.array([[1, 2, 0, 4]]), class_scores=False)
    assert ints.exact_kind and ints.equal_share == 0.75 and ints.cosine is None and ints.top1 is None


def test_a_score_map_is_compared_as_masks() -> None:
    """A text detector's [N, 1, H, W] probability map: the masks at 0.5 and their IoU, per input, then the mean."""
    ref = np.zeros((2, 1, 8, 8), np.float32)
    ref[0, 0, :4] = 0.9  # 32 pixels of text in the first input; none in the second
    act = ref.copy()
    act[0, 0, :2] = 0.4  # half of them fall below 0.5
    act[0, 0, 4:5] = 0.6  # and 8 new ones appear
    mapped = compare_output("maps", ref, act, class_scores=False)
    assert mapped.mask_iou == pytest.approx((16 / 40 + 1.0) / 2)  # the empty second input agrees fully
    assert compare_output("maps", ref, ref.copy(), class_scores=False).mask_iou == 1.0
    assert compare_output("maps", ref, act, class_scores=True).top1 is None  # a sigmoid map scores pixels
    assert compare_output("features", ref * 3, act * 3, class_scores=False).mask_iou is None  # not probabilities
    assert compare_output("vector", ref[:, :, 0], act[:, :, 0], class_scores=False).mask_iou is None


def test_class_scores_are_told_from_other_outputs() -> None:
    assert list(class_score_outputs(zoo_model("mobilenet_v2")).values()) == [True]  # a softmax over 1000 classes
    assert list(class_score_outputs(zoo_model("tiny_conv")).values()) == [False]  # a feature map
    assert class_score_outputs(zoo_model("ssdlite_mobilenet_v2")) == {"boxes": False, "scores": True}
    assert list(class_score_outputs(zoo_model("bert_encoder")).values()) == [False]  # hidden states


@pytest.fixture(scope="module")
def compared(default_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("accuracy") / "r.db"
    run_sweep(quick_spec(default_model, out, precisions=(Precision.FP32, Precision.FP16, Precision.BF16),
                         streams=(1,), nireq=(1,), accuracy_inputs=8))
    return out


def test_each_precision_against_the_fp32_reference(compared: Path) -> None:
    stored = load_results(compared)  # stored, and read back after reopening the file
    figures = {a.precision: a for a in stored.accuracies}
    ran = {p.config.precision: p.compile.executed_precision for p in stored.points if p.compile is not None}
    assert set(figures) == {Precision.FP32, Precision.FP16, Precision.BF16}
    assert all(a.inputs == 8 and not a.error for a in figures.values())
    fp32 = figures[Precision.FP32]
    assert fp32.cosine == 1.0 and fp32.outputs[0].max_abs == 0.0  # f32 against f32: exact
    assert fp32.top1 == 1.0  # a classifier: top-1 agreement is computed
    fp16 = figures[Precision.FP16]  # weights rounded to f16 (and f16 math where the CPU has it): small, not zero
    assert 0 < fp16.outputs[0].max_abs < 1e-2 and fp16.cosine is not None and 0.99 < fp16.cosine < 1.0
    bf16 = figures[Precision.BF16]
    if ran[Precision.BF16] == "bf16":  # really bf16: it differs, and not by much
        assert bf16.cosine is not None and 0.99 < bf16.cosine < 1.0
    else:  # a CPU without bf16 runs the bf16 hint at f32: then the outputs are the reference's own
        assert ran[Precision.BF16] == "f32" and bf16.cosine == 1.0 and bf16.outputs[0].max_abs == 0.0


def test_a_loss_limit_excludes_a_precision_and_says_why(compared: Path) -> None:
    stored = load_results(compared)
    out = excluded(stored.accuracies, AccuracyLimit.parse("cosine=0"))
    assert ("CPU", Precision.FP16, 1) in out and ("CPU", Precision.FP32, 1) not in out
    breach = out[("CPU", Precision.FP16, 1)]
    assert breach.figure == "cosine" and breach.value is not None and breach.value < 1.0 == breach.least
    shown = CliRunner().invoke(app, ["recommend", str(compared), "--max-accuracy-loss", "cosine=0",
                                     "--precision", "fp16"])
    assert shown.exit_code != 0 and "no measured configuration for fp16" in shown.stderr
    plain = CliRunner().invoke(app, ["recommend", str(compared), "--max-accuracy-loss", "cosine=0"])
    # The breach is one row either way: "held back" where fp16 would have been the answer on this host's speeds,
    # "excluded" where it would not.
    said_flat = " ".join(plain.stdout.split())
    assert plain.exit_code == 0 and breach_reason(breach) in said_flat
    assert (f"CPU fp16 batch 1 excluded: {breach_reason(breach)}" in said_flat
            or "held back CPU fp16 batch 1 " in said_flat), plain.stdout
    assert "CPU fp16 batch 1 (ran " in CliRunner().invoke(app, ["show", str(compared)]).stdout
    with pytest.raises(BadInputError, match="max accuracy loss: cannot read 'psnr=3'") as unread:
        AccuracyLimit.parse("psnr=3")
    assert said(unread.value).startswith("--max-accuracy-loss: cannot read 'psnr=3'")


def test_a_model_that_is_not_deterministic_is_reported_and_the_sweep_goes_on(tmp_path: Path) -> None:
    x = ops8.parameter([-1, 16], ov.Type.f32, name="x")
    noise = ops8.random_uniform(ops8.shape_of(x), ops8.constant(np.float32(0)), ops8.constant(np.float32(1)),
                                "f32", 0, 0)  # seeds 0 and 0: a new random seed every run
    path = tmp_path / "noisy.xml"
    ov.save_model(ov.Model([ops8.add(x, noise)], [x], "noisy"), path)
    out = tmp_path / "r.db"
    summary = run_sweep(quick_spec(path, out, streams=(1,), nireq=(1,), accuracy_inputs=4))
    assert summary.measured == 1
    (accuracy,) = load_results(out).accuracies
    assert accuracy.error is not None and "differ between two runs of the same input" in accuracy.error
