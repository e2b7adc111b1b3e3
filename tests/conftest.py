"""Fixtures: tiny real models written as OpenVINO IR, and a private cache for converted IRs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest

from ov_tuner.model.architectures import DEFAULT_ARCHITECTURE
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import Precision, StopRule, SweepSpec
from ov_tuner.workloads.sweep import SweepSummary, run_sweep


@pytest.fixture(scope="session", autouse=True)
def private_ir_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep FP16 IRs made by tests out of the user's ~/.cache."""
    cache = tmp_path_factory.mktemp("ir-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OV_TUNER_CACHE", str(cache))
        yield cache


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def tiny_model(models_dir: Path) -> Path:
    """One 3x3 convolution with a dynamic batch: ~0.05 ms per inference."""
    return build_zoo_model("tiny_conv", models_dir)[0]


@pytest.fixture(scope="session")
def default_model(models_dir: Path) -> Path:
    """The bundled default model, MobileNet-v2 at 224x224 (~4 ms per inference here)."""
    return build_zoo_model(DEFAULT_ARCHITECTURE, models_dir)[0]


def _save(model: ov.Model, path: Path) -> Path:
    ov.save_model(model, path, compress_to_fp16=False)
    return path


@pytest.fixture(scope="session")
def spatially_dynamic_model(models_dir: Path) -> Path:
    """Batch, height and width all dynamic: needs --shape."""
    x = ops.parameter([-1, 3, -1, -1], ov.Type.f32, name="image")
    w = ops.constant(np.ones((4, 3, 3, 3), dtype=np.float32))
    y = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1])
    return _save(ov.Model([y], [x], "dynamic_hw"), models_dir / "dynamic_hw.xml")


@pytest.fixture(scope="session")
def batch_one_only_model(models_dir: Path) -> Path:
    """A reshape to a hard-coded [1, 128] pins the batch at 1, like many exported models."""
    x = ops.parameter([1, 8, 4, 4], ov.Type.f32, name="x")
    y = ops.reshape(x, ops.constant(np.array([1, 128], dtype=np.int64)), special_zero=False)
    return _save(ov.Model([y], [x], "batch_one_only"), models_dir / "batch_one_only.xml")


@pytest.fixture(scope="session")
def failing_inference_model(models_dir: Path) -> Path:
    """Compiles, then fails at every inference: its data input asks for a reshape of 8 values to 0 or 1."""
    x = ops.parameter([-1, 8], ov.Type.f32, name="x")
    target = ops.parameter([-1, 2], ov.Type.i64, name="target_shape")
    y = ops.reshape(x, ops.reduce_max(target, ops.constant(np.array([0], dtype=np.int64)), keep_dims=False),
                    special_zero=False)
    return _save(ov.Model([y], [x, target], "failing"), models_dir / "failing.xml")


def quick_spec(model: Path, out: Path, **overrides: object) -> SweepSpec:
    """A sweep short enough for tests: 0.15 s per point in 0.05 s windows, after 0.05 s of warm-up, no baselines,
    no confirmation round and no output comparison unless asked for."""
    settings: dict[str, object] = dict(
        model=model, out=out, precisions=(Precision.FP32,), streams=(1, 2), nireq=(1, 2),
        stop=StopRule(window_s=0.05, fixed_s=0.15), warmup_s=0.05, baselines=False, confirm=None, accuracy_inputs=None,
    )
    settings.update(overrides)
    return SweepSpec(**settings)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def swept_db(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real sweep of the tiny model over fp32/fp16 x streams 1,2 x nireq 1,2 x batch 1,2."""
    out = tmp_path_factory.mktemp("swept") / "results.db"
    summary: SweepSummary = run_sweep(quick_spec(tiny_model, out, precisions=(Precision.FP32, Precision.FP16),
                                                 batches=(1, 2)))
    assert summary.measured == 16
    return out


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer, 256-wide random LLaMA as a GGUF with F16 matrices (ov_tuner.workloads.llm.gguf), which GenAI loads."""
    from ov_tuner.workloads.llm.gguf import write_llama_gguf

    return write_llama_gguf(tmp_path_factory.mktemp("llm") / "tiny.gguf")


@pytest.fixture(scope="session")
def tiny_q4_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same LLaMA with its matrices quantized as a Q4_1 file's (SmolLM2's kind): what a pipeline of one thread
    runs in tests. With F16 matrices, GenAI 2026.4.1 dies building a pipeline of one thread (SIGFPE) on a Xeon with
    AMX, at bf16; Q4_1 matrices, or f32 inference, build."""
    from ov_tuner.workloads.llm.gguf import write_llama_gguf

    return write_llama_gguf(tmp_path_factory.mktemp("llm-q4") / "tiny_q4.gguf", quantized=True)


@pytest.fixture(scope="session")
def llm_db(tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `ov-tuner llm` results file: GenAI left alone three ways and 1024 batched tokens (a grid), two
    passes, and the walks to 4 users under a budget every setting meets."""
    from typer.testing import CliRunner

    from ov_tuner.cli import app

    db = tmp_path_factory.mktemp("llm-results") / "r.db"
    done = CliRunner().invoke(app, [
        "llm", str(tiny_gguf), "--out", str(db), "--seconds", "0.3", "--lead-in", "0.1", "--users", "2",
        "--prompt-tokens", "8", "--output-tokens", "4", "--batched-tokens", "256,1024", "--kv-precision", "default",
        "--search", "grid",
        "--passes", "2", "--ttft-ms", "60000", "--most-users", "4"])
    assert done.exit_code == 0, done.output
    return db
