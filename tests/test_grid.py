from __future__ import annotations

from pathlib import Path

import pytest

from ov_tuner.commandline.flags import int8_asked, parse_counts, parse_precisions, parse_shapes, parse_stop_rule
from ov_tuner.devices.decisions import auto_nireq, auto_streams
from ov_tuner.errors import BadInputError
from ov_tuner.schema import DeviceInfo, Mode, PointConfig, Precision, SweepSpec
from ov_tuner.workloads.sweep.plan import plan
from ov_tuner.workloads.sweep.policy import Cell


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
    with pytest.raises(BadInputError, match="'int4' is not one of fp32, fp16, bf16, int8"):
        parse_precisions("fp32,int4")
    assert parse_precisions("auto,int8") is None and int8_asked("auto,int8") and not int8_asked("fp32")
    with pytest.raises(BadInputError, match="auto goes alone or with int8"):
        parse_precisions("auto,fp16")


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


def test_plan_orders_spaces_by_device_precision_batch() -> None:
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32, Precision.FP16),
                     streams=(1, 2), nireq=(1, 4), batches=(1, 2), baselines=False)
    spaces = plan(spec, [device("CPU"), device("GPU")])
    assert [(s.device.name, s.precision, s.batch) for s in spaces] == [
        (d, p, b) for d in ("CPU", "GPU") for p in (Precision.FP32, Precision.FP16) for b in (1, 2)]
    first = spaces[0]
    assert first.space.cells() == [Cell(1, 1), Cell(1, 4), Cell(2, 1), Cell(2, 4)]
    assert first.space.busy_cells() == [Cell(1, 1), Cell(1, 4), Cell(2, 4)]  # 2 streams x 1 request idles one
    assert first.config(Cell(2, 4)) == PointConfig("CPU", Precision.FP32, 1, 2, 4)
    assert first.baseline(Mode.LATENCY).label() == "CPU fp32 batch 1 LATENCY hint"
    assert not first.auto  # explicit lists: the hint's own values do not join
    # "OpenVINO default" is measured once per device and batch, by the first space of them
    assert [(s.device.name, s.precision, s.batch) for s in spaces if s.hosts_default] == [
        ("CPU", Precision.FP32, 1), ("CPU", Precision.FP32, 2), ("GPU", Precision.FP32, 1), ("GPU", Precision.FP32, 2)]
    assert first.default_baseline().label() == "CPU batch 1 OpenVINO default"
    assert not any(s.auto_precision for s in spaces)


def test_auto_precisions_are_planned_per_device() -> None:
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), streams=(1,), nireq=(1,))
    bf16 = DeviceInfo("CPU", "CPU", (1, 2), 1, ("FP32", "BF16"), "bf16")
    gpu = DeviceInfo("GPU", "GPU", (1, 2), 1, ("FP32", "FP16"), "f16")
    spaces = plan(spec, [bf16, gpu])
    assert [(s.device.name, s.precision) for s in spaces] == [
        ("CPU", Precision.FP32), ("CPU", Precision.BF16), ("GPU", Precision.FP32), ("GPU", Precision.FP16)]
    assert all(s.auto_precision for s in spaces)


def test_precision_auto_is_the_default_and_names_stay_checked() -> None:
    assert parse_precisions("auto") is None and parse_precisions("fp32,bf16") == (Precision.FP32, Precision.BF16)
    with pytest.raises(BadInputError, match="or auto"):
        parse_precisions("fp64")


def test_an_auto_space_takes_in_the_throughput_hints_choice() -> None:
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32,))
    (planned,) = plan(spec, [device("CPU", streams=(1, 4))])
    assert planned.space.streams == (1, 2, 4) and planned.space.nireqs == (1, 2, 4, 8)
    space = planned.with_hint(Cell(3, 6))
    assert space.hint == Cell(3, 6)
    assert space.streams == (1, 2, 3, 4) and space.nireqs == (1, 2, 4, 6, 8)
    assert space.max_streams == 4


def test_time_auto_or_seconds() -> None:
    auto = parse_stop_rule("auto", 1.0, 0.03, 10.0)
    assert (auto.fixed_s, auto.window_s, auto.tolerance, auto.max_s) == (None, 1.0, 0.03, 10.0)
    fixed = parse_stop_rule("2", 1.0, 0.03, 10.0)
    assert (fixed.fixed_s, fixed.window_s) == (2.0, 0.4)  # at least five windows
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(BadInputError, match="--seconds"):
            parse_stop_rule(bad, 1.0, 0.03, 10.0)
