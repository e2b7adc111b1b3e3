from __future__ import annotations

from pathlib import Path

import pytest

from ov_tuner.errors import BadInputError
from ov_tuner.schema import CompileKey, DeviceInfo, Mode, Precision, SweepSpec
from ov_tuner.search.grid import (
    auto_nireq,
    auto_streams,
    expand,
    parse_counts,
    parse_precisions,
    parse_shapes,
    parse_stop_rule,
)


def device(name: str = "CPU", streams: tuple[int, int] | None = (1, 6), optimal: int | None = 1) -> DeviceInfo:
    return DeviceInfo(name, name, streams, optimal, ("FP32",), "f32")


def test_counts_are_sorted_unique_and_auto_means_none() -> None:
    assert parse_counts("4, 1,2,2", "--nireq") == (1, 2, 4)
    assert parse_counts("AUTO", "--nireq") is None


@pytest.mark.parametrize("text", ["0", "-1", "two", "1,,2", "1.5", ""])
def test_bad_count_names_the_flag_and_the_value(text: str) -> None:
    with pytest.raises(BadInputError, match=r"--streams: .* is not a whole number above 0; use e\.g\."):
        parse_counts(text, "--streams")


def test_batch_does_not_accept_auto() -> None:
    with pytest.raises(BadInputError, match="--batch"):
        parse_counts("auto", "--batch", allow_auto=False)


def test_precisions_parse_and_reject_unknown() -> None:
    assert parse_precisions("fp16,FP32,fp16") == (Precision.FP16, Precision.FP32)
    with pytest.raises(BadInputError, match="'int8' is not one of fp32, fp16, bf16"):
        parse_precisions("fp32,int8")


def test_shapes_in_benchmark_app_syntax() -> None:
    assert parse_shapes("[1,3,224,224]") == {"": [1, 3, 224, 224]}
    assert parse_shapes("ids[1,128],mask[1,128]") == {"ids": [1, 128], "mask": [1, 128]}
    for bad in ("1,3,224,224", "[1,?,3]", "x[1,3] junk"):
        with pytest.raises(BadInputError, match="--shape"):
            parse_shapes(bad)


def test_auto_streams_follow_the_device_range() -> None:
    assert auto_streams(device(streams=(1, 6))) == (1, 2, 4, 6)
    assert auto_streams(device(streams=(1, 2))) == (1, 2)
    assert auto_streams(device(streams=None)) == (1,)


def test_auto_nireq_reaches_twice_the_streams_and_the_optimal_count() -> None:
    assert auto_nireq((1, 2), device(optimal=1)) == (1, 2, 4)
    assert auto_nireq((1,), device(optimal=8)) == (1, 2, 4, 8)


def test_expand_orders_compile_groups_and_keeps_nireq_inside() -> None:
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32, Precision.FP16),
                     streams=(1, 2), nireq=(1, 4), batches=(1, 2), baselines=False)
    groups = expand(spec, [device("CPU"), device("GPU")])
    assert len(groups) == 2 * 2 * 2 * 2
    assert groups[0].key == CompileKey("CPU", Precision.FP32, 1, 1)
    assert groups[1].key == CompileKey("CPU", Precision.FP32, 1, 2)
    assert groups[-1].key == CompileKey("GPU", Precision.FP16, 2, 2)
    assert all(g.nireqs == (1, 4) for g in groups)
    assert [p.nireq for p in groups[0].points()] == [1, 4]


def test_hint_baselines_close_each_device_precision_batch() -> None:
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32,), streams=(1, 2),
                     nireq=(1,), batches=(1, 2))
    keys = [g.key for g in expand(spec, [device("CPU")])]
    assert keys == [
        CompileKey("CPU", Precision.FP32, 1, 1), CompileKey("CPU", Precision.FP32, 1, 2),
        CompileKey("CPU", Precision.FP32, 1, 0, Mode.LATENCY), CompileKey("CPU", Precision.FP32, 1, 0, Mode.THROUGHPUT),
        CompileKey("CPU", Precision.FP32, 2, 1), CompileKey("CPU", Precision.FP32, 2, 2),
        CompileKey("CPU", Precision.FP32, 2, 0, Mode.LATENCY), CompileKey("CPU", Precision.FP32, 2, 0, Mode.THROUGHPUT),
    ]
    baseline = expand(spec, [device("CPU")])[2]
    assert baseline.nireqs == (0,)  # 0: the device's optimal number, read back after compiling
    assert baseline.points()[0].label() == "CPU fp32 batch 1 PERFORMANCE_HINT=LATENCY"


def test_time_auto_or_seconds() -> None:
    auto = parse_stop_rule("auto", 1.0, 0.03, 10.0)
    assert (auto.fixed_s, auto.window_s, auto.tolerance, auto.max_s) == (None, 1.0, 0.03, 10.0)
    fixed = parse_stop_rule("2", 1.0, 0.03, 10.0)
    assert (fixed.fixed_s, fixed.window_s) == (2.0, 0.4)  # at least five windows
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(BadInputError, match="--time"):
            parse_stop_rule(bad, 1.0, 0.03, 10.0)
