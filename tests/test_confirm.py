"""The confirmation round on the real runtime, and the answers it gives: ties, gains and ratios with intervals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from conftest import quick_spec
from typer.testing import CliRunner

from ov_tuner.analyse.answers import inconsistencies
from ov_tuner.analyse.confirmed import confirmed_answer
from ov_tuner.analyse.headtohead import HeadToHead, Ratio
from ov_tuner.analyse.recommend import recommend
from ov_tuner.cli import app
from ov_tuner.devices.runtime import Runtime, open_model_source
from ov_tuner.measure.confirm import Compile, run_confirmation
from ov_tuner.schema import (
    CompileInfo,
    Confirmation,
    ConfirmRule,
    Contender,
    Mode,
    PointConfig,
    Precision,
    RoundWindow,
    Search,
    StopRule,
    Window,
)
from ov_tuner.search.confirm import follow_up
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.sweep import run_sweep


def compiler(model: Path) -> Compile:
    runtime = Runtime()
    source, cpu = open_model_source(model), runtime.device_info("CPU")

    def compile_config(config: PointConfig) -> tuple[ov.CompiledModel, CompileInfo]:
        return runtime.compile_alone(source, config.compile_key, cpu)

    return compile_config


def test_the_round_interleaves_stores_every_window_and_tells_ties_from_losers(default_model: Path,
                                                                              tmp_path: Path) -> None:
    one, latency_hint = grid(1, 1), PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.LATENCY)
    two, idle = grid(2, 2), grid(2, 1)
    rule = ConfirmRule(rounds=6, window_s=0.15, max_rounds=6)
    with ResultStore(tmp_path / "r.db") as store:
        assert run_confirmation(compiler(default_model), [one, latency_hint, two, idle], store, "CPU", rule) == 4
    (confirmation,) = load_results_confirmations(tmp_path / "r.db")
    visits = sorted(confirmation.windows, key=lambda w: w.visit)
    assert [w.contender for w in visits] == [0, 1, 2, 3, 3, 2, 1, 0] * 3  # A B C D, then D C B A
    assert [w.round for w in visits] == [r for r in range(6) for _ in range(4)]
    assert all(w.latencies_ms.size == w.window.requests > 0 for w in visits)
    assert confirmation.complete_rounds() == list(range(6))
    head = HeadToHead.of(confirmation)
    assert head is not None
    c = confirmation.contenders
    assert (c[1].streams, c[1].nireq) == (1, 1)  # the LATENCY hint runs what the explicit 1 x 1 runs
    same = head.ratio(c[1], c[0], confidence=0.999)
    assert same.low <= 1 <= same.high, same
    slower = head.ratio(c[3], c[2])  # 2 streams with 1 request leave a stream idle
    assert slower.clear and slower.high < 1, slower


def load_results_confirmations(path: Path) -> list[Confirmation]:
    with ResultStore(path, create=False) as store:
        return store.confirmations()


def test_ratio_wording() -> None:
    assert Ratio(1.041, 1.020, 1.062, 8).as_gain() == "+4.1% (95%: +2.0..+6.2%)"
    assert Ratio(1.008, 0.985, 1.031, 8).as_gain_inline() == "+0.8%, 95%: -1.5..+3.1%"
    assert Ratio(1.95, 1.90, 2.00, 8).as_factor() == "1.95x (95%: 1.90..2.00x)"
    assert Ratio(1.02, 0.97, 1.07, 8).as_factor() == "no measurable difference (1.02x, 95%: 0.97..1.07x)"
    assert not Ratio(1.18, 0.95, 1.40, 3).clear  # a big point estimate whose interval holds 1.0 is no speed-up
    assert Ratio(0.9, 0.8, 0.95, 8).reciprocal().as_factor() == "1.11x (95%: 1.05..1.25x)"


def round_of(fps: dict[PointConfig, list[float]], p90_ms: dict[PointConfig, float]) -> Confirmation:
    """A confirmation whose contenders ran the given FPS, pass by pass, with every latency at the given p90."""
    configs = list(fps)
    contenders = tuple(Contender(c, c.streams or 2, c.nireq or 2) for c in configs)
    windows = []
    rounds = len(next(iter(fps.values())))
    for r in range(rounds):
        for i, c in enumerate(configs):
            windows.append(RoundWindow(r, r * len(configs) + i, i, Window(fps[c][r], p90_ms[c], 100, 0.25),
                                       np.full(100, p90_ms[c])))
    return Confirmation("CPU", contenders, tuple(windows), rounds, 0.25)


def grid(streams: int, nireq: int, precision: Precision = Precision.FP32) -> PointConfig:
    return PointConfig("CPU", precision, 1, streams, nireq)


def test_a_clear_winner_is_named_with_its_gain_and_interval() -> None:
    a, b = grid(2, 4), grid(2, 2)
    head = HeadToHead.of(round_of({a: [104, 105, 103, 104, 105, 104], b: [100, 101, 99, 100, 100, 100]},
                                  {a: 12.0, b: 6.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == a and not answer.tied
    assert answer.reason.startswith("CPU: fp32 batch 1 2 x 4 is the best: +4.2% (95%: +3.7..+4.6%)")
    assert answer.reason.endswith("FPS over fp32 batch 1 2 x 2")


def test_a_tie_deploys_the_lower_latency_and_says_so() -> None:
    a, b = grid(2, 4), grid(2, 2)
    head = HeadToHead.of(round_of({a: [101, 99, 102, 98, 101, 100], b: [100, 100, 100, 100, 100, 100]},
                                  {a: 12.0, b: 6.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == b  # tied: the lower p90 latency
    assert "fp32 batch 1 2 x 2 and fp32 batch 1 2 x 4 are tied within noise (+0.2%, 95%: -" in answer.reason
    assert answer.reason.endswith("deploy fp32 batch 1 2 x 2, the one with the lowest p90 latency")
    # under a budget the slower-latency one is out of the running
    only = confirmed_answer(head, max_latency_ms=8.0)
    assert only is not None and only.candidates == 1 and only.deploy.contender.config == b


def test_tied_precisions_deploy_the_exact_one_and_ratios_say_no_measurable_difference() -> None:
    fp32, fp16, hint = grid(2, 4), grid(2, 4, Precision.FP16), PointConfig("CPU", Precision.FP32, 1, 0, 0,
                                                                              Mode.LATENCY)
    head = HeadToHead.of(round_of({fp32: [100, 102, 99, 101, 100, 98], fp16: [103, 99, 101, 102, 98, 100],
                                   hint: [60, 61, 59, 60, 60, 61]}, {fp32: 12.0, fp16: 11.0, hint: 4.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == fp32
    assert "deploy fp32 batch 1 2 x 4, the most exact precision" in answer.reason
    (ratio,) = answer.precision_ratios
    assert "fp16/fp32 at batch 1" in ratio.reason and "no measurable difference" in ratio.reason
    (gain,) = answer.gains
    assert gain.figures.contender.config.mode is Mode.LATENCY and gain.ratio.clear and gain.ratio.value > 1.6


def test_a_restricted_space_that_misses_the_hints_configuration_says_so(tiny_model: Path, tmp_path: Path) -> None:
    """One stream and one request against OpenVINO's THROUGHPUT hint: on any host with more than one core the hint
    runs more requests in flight, far faster on a model this small, and the answer must say the space missed it."""
    out = tmp_path / "r.db"
    spec = quick_spec(tiny_model, out, streams=(1,), nireq=(1,), baselines=True, search=Search.SMART,
                      stop=StopRule(window_s=0.1, max_s=1.0), confirm=ConfirmRule(rounds=4, window_s=0.1))
    summary = run_sweep(spec)
    assert summary.confirmed == 3  # 1 x 1 and the two hint baselines
    stored = load_results(out)
    throughput = next(p for p in stored.points if p.config.mode is Mode.THROUGHPUT)
    if (throughput.streams, throughput.nireq) == (1, 1):
        pytest.skip("on this host the THROUGHPUT hint itself runs 1 stream x 1 request: nothing to miss")
    (found,) = [i for i in inconsistencies(stored.points) if i.baseline is throughput]
    hint = f"{throughput.streams} x {throughput.nireq}"
    assert not found.in_space and f"the search space (streams 1; requests up to 1) missed {hint}" in found.reason
    rec = recommend(stored.points, confirmations=stored.confirmations)
    assert rec.confirmed and rec.winner.config.mode is Mode.THROUGHPUT
    assert f"THROUGHPUT hint ({hint}) beats every explicit configuration the search measured: +" in rec.reason
    assert "FPS over fp32 batch 1 1 x 1; deploy it, or widen the search" in rec.reason
    shown = CliRunner().invoke(app, ["show", str(out)]).stdout
    assert "not the best:" in shown and "missed" in shown
    payload = json.loads(CliRunner().invoke(app, ["recommend", str(out), "--json"]).stdout)
    assert payload["confirmed"] is True and payload["mode"] == "throughput"
    assert (payload["streams"], payload["nireq"]) == (throughput.streams, throughput.nireq)
    assert payload["fps"] > 0 and set(payload["latency_ms"]) == {"median", "p90", "p99"}
    (gain,) = payload["gains"]  # over the LATENCY hint, with its interval
    assert gain["over"]["mode"] == "latency" and gain["fps_ratio"]["low"] <= gain["fps_ratio"]["ratio"]


def test_the_sweep_stores_the_anchor_points(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=None, nireq=None, baselines=True, search=Search.SMART))
    stored = load_results(out)
    cpu = stored.devices["CPU"]
    assert cpu.streams_range is not None
    top = cpu.streams_range[1]
    throughput = next(p for p in stored.points if p.config.mode is Mode.THROUGHPUT)
    measured = {(p.config.streams, p.config.nireq) for p in stored.points if p.config.mode is Mode.GRID}
    assert (throughput.streams, throughput.nireq) in measured  # the hint's own choice, as an explicit point
    assert (top, top) in measured and (top, 2 * top) in measured  # the top of the stream range


def test_follow_up_passes_measure_only_the_leader_and_what_is_still_open() -> None:
    lead, edge, loser = grid(2, 4), grid(1, 1), grid(2, 1)
    noisy = round_of({lead: [110, 95, 120, 100, 115, 98], edge: [100, 100, 100, 100, 100, 100],
                      loser: [50, 51, 50, 49, 50, 50]}, {lead: 12.0, edge: 4.0, loser: 8.0})
    assert follow_up(noisy) == [0, 1]  # the leader and the one not told apart; the clear loser is done
    settled = round_of({lead: [104, 105, 103, 104, 105, 104], edge: [100, 101, 99, 100, 100, 100]},
                       {lead: 12.0, edge: 6.0})
    assert follow_up(settled) == []


def test_a_hint_baseline_is_a_reference_unless_it_beats_every_explicit_configuration() -> None:
    explicit, hint = grid(2, 2), PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.THROUGHPUT)
    level = HeadToHead.of(round_of({explicit: [100, 101, 99, 100, 100, 101], hint: [101, 100, 100, 101, 99, 100]},
                                   {explicit: 12.0, hint: 6.0}))
    assert level is not None
    answer = confirmed_answer(level)
    assert answer is not None and answer.deploy.contender.config == explicit  # not the quicker-latency hint
    assert [s.figures.contender.config for s in answer.gains] == [hint]
    ahead = HeadToHead.of(round_of({explicit: [100, 101, 99, 100, 100, 101], hint: [150, 151, 149, 150, 152, 150]},
                                   {explicit: 12.0, hint: 6.0}))
    assert ahead is not None
    answer = confirmed_answer(ahead)
    assert answer is not None and answer.deploy.contender.config == hint


def test_a_noisy_round_deploys_the_leader_and_names_what_it_could_not_tell_apart() -> None:
    lead, edge = grid(2, 4), grid(1, 1)
    head = HeadToHead.of(round_of({lead: [110, 95, 120, 100, 115, 98], edge: [100, 100, 100, 100, 100, 100]},
                                  {lead: 12.0, edge: 4.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == lead  # not the quicker edge it could not resolve
    assert not answer.tied and [s.figures.contender.config for s in answer.unresolved] == [edge]
    assert answer.reason.startswith("CPU: fp32 batch 1 2 x 4 ran the most FPS: deploy it; the round could not tell "
                                    "1 more apart from fp32 batch 1 2 x 4 (fp32 batch 1 1 x 1: -")
