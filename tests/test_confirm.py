"""The confirmation round on the real runtime, and the answers it gives: ties, gains and ratios with intervals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import openvino as ov
import pytest
from conftest import quick_spec
from factories import baseline, figures_missing, make_point, round_of
from typer.testing import CliRunner

from ov_tuner.analyse.baselines import Missed, inconsistencies
from ov_tuner.analyse.confirmed import CostStep, PrecisionRatio, Rule, confirmed_answer, precision_ratios
from ov_tuner.analyse.hints import HintEffect, hint_effects
from ov_tuner.analyse.recommend import recommend
from ov_tuner.cli import app
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.rounds import still_open
from ov_tuner.schema import (
    CompileInfo,
    Confirmation,
    ConfirmRule,
    Contender,
    DeviceInfo,
    Mode,
    PointConfig,
    Precision,
    Search,
    StopRule,
    SweepSpec,
    default_window,
)
from ov_tuner.stats.evidence import Estimate, clearly_worse
from ov_tuner.stats.headtohead import RERUN_SD, HeadToHead, Ratio, rerun_floor, round_fps
from ov_tuner.stats.settle import FLOOR_FACTOR
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.confirm import Compile, run_confirmation
from ov_tuner.workloads.sweep.contenders import plan_confirmation
from ov_tuner.workloads.sweep.plan import plan, search_order
from ov_tuner.workloads.sweep.present.words.findings import inconsistency_text


def compiler(model: Path) -> Compile:
    runtime = Runtime()
    source, cpu = open_model_source(model), runtime.device_info("CPU")

    def compile_config(config: PointConfig) -> tuple[ov.CompiledModel, CompileInfo]:
        return Compiler(runtime, source).compile(config.compile_key, cpu)

    return compile_config


def test_the_round_interleaves_stores_every_window_and_pairs_them_by_pass(default_model: Path,
                                                                          tmp_path: Path) -> None:
    one, latency_hint = grid(1, 1), PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.LATENCY)
    two, idle = grid(2, 2), grid(2, 1)
    rule = ConfirmRule(passes=6, window_s=0.15, max_passes=6)
    with ResultStore(tmp_path / "r.db") as store:
        assert run_confirmation(compiler(default_model), [one, latency_hint, two, idle], store, "CPU", rule) == 4
    (confirmation,) = load_results_confirmations(tmp_path / "r.db")
    visits = sorted(confirmation.windows, key=lambda w: w.visit)
    assert [w.contender for w in visits] == [0, 1, 2, 3, 3, 2, 1, 0] * 3  # A B C D, then D C B A
    assert [w.pass_number for w in visits] == [r for r in range(6) for _ in range(4)]
    assert all(w.latencies_ms.size == w.window.requests > 0 for w in visits)
    assert confirmation.complete_passes() == list(range(6))
    head = HeadToHead.of(confirmation)
    assert head is not None
    c = confirmation.contenders
    assert (c[1].streams, c[1].nireq) == (1, 1)  # the LATENCY hint runs what the explicit 1 x 1 runs
    # Which runs faster is this host's business (ties and losers are told on constructed rounds below): a pair's ratio
    # is the geometric mean of its passes' FPS ratios, inside its interval, and the same read either way round.
    fps = {(w.pass_number, w.contender): w.window.fps for w in visits}
    for a, b in ((1, 0), (3, 2)):
        ratio = head.ratio(c[a], c[b])
        assert ratio.value == pytest.approx(math.exp(sum(math.log(fps[r, a] / fps[r, b]) for r in range(6)) / 6))
        assert ratio.low < ratio.value < ratio.high and ratio.passes == 6
        back, turned = head.ratio(c[b], c[a]), ratio.reciprocal()
        assert (back.value, back.low, back.high) == pytest.approx((turned.value, turned.low, turned.high))


def load_results_confirmations(path: Path) -> list[Confirmation]:
    with ResultStore(path, create=False) as store:
        return store.confirmations()


def test_ratio_clear_and_reciprocal() -> None:
    assert Ratio(1.95, 1.90, 2.00, 8).clear
    assert not Ratio(1.18, 0.95, 1.40, 3).clear  # a big point estimate whose interval holds 1.0 is no speed-up
    back = Ratio(0.9, 0.8, 0.95, 8).reciprocal()
    assert (back.value, back.low, back.high) == pytest.approx((1 / 0.9, 1 / 0.95, 1 / 0.8)) and back.clear


def grid(streams: int, nireq: int, precision: Precision = Precision.FP32) -> PointConfig:
    return PointConfig("CPU", precision, 1, streams, nireq)


def default_of(device: str = "CPU") -> PointConfig:
    return PointConfig(device, Precision.FP32, 1, 0, 0, Mode.DEFAULT)


def test_a_clear_winner_is_named_with_its_gain_and_interval() -> None:
    a, b = grid(2, 4), grid(2, 2)
    head = HeadToHead.of(round_of({a: [131, 130, 129, 130, 131, 130], b: [100, 101, 99, 100, 100, 100]},
                                  {a: 12.0, b: 6.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == a and answer.rule is Rule.FASTEST
    assert not answer.near and answer.runner_up is not None and answer.runner_up.figures.contender.config == b
    assert answer.runner_up.ratio.value == pytest.approx(100 / 130.2, rel=0.005) and answer.runner_up.ratio.high < 1


def test_rerun_spread_widens_every_stated_interval() -> None:
    """Two contenders whose passes agree to 0.1%: a rerun on the same host still moves their ratio by RERUN_SD."""
    a, b = grid(2, 4), grid(2, 2)
    head = HeadToHead.of(round_of({a: [115.0, 115.1, 115.0, 115.1, 115.0, 115.1], b: [100.0] * 6}, {a: 1, b: 1}))
    assert head is not None
    wide, narrow = head.ratio(head.figures[0].contender, head.figures[1].contender), \
        head.ratio(head.figures[0].contender, head.figures[1].contender, rerun=False)
    assert narrow.high - narrow.low < 0.01
    assert math.log(wide.high / wide.value) == pytest.approx(1.96 * RERUN_SD, rel=0.01)
    assert wide.low < narrow.low and wide.high > narrow.high and wide.clear


def test_the_tie_rule_deploys_the_cheapest_of_those_within_noise() -> None:
    """Near the leader, noise decides which runs fastest; the cost order does not change from run to run."""
    leader, two, one, idle, edge = grid(2, 4), grid(2, 2), grid(1, 2), grid(1, 1), grid(4, 8)
    head = HeadToHead.of(round_of({
        leader: [101, 102, 100, 101, 102, 100], two: [99, 100, 98, 99, 100, 98], one: [97, 98, 96, 97, 98, 96],
        idle: [70, 71, 69, 70, 71, 69], edge: [94, 95, 93, 94, 95, 93]}, {c: 5.0 for c in (leader, two, one, idle,
                                                                                            edge)}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.rule is Rule.CHEAPEST
    assert answer.leader.contender.config == leader
    # within noise of the leader, 7% below it included: no margin on a point estimate decides
    assert {s.figures.contender.config for s in answer.near} == {two, one, edge}
    assert not answer.unresolved and idle not in {s.figures.contender.config for s in answer.near}
    assert answer.deploy.contender.config == one  # 2 requests like 2 x 2, then the fewest streams
    assert answer.decided_by is CostStep.STREAMS


def test_among_equally_cheap_configurations_the_most_exact_precision_is_deployed() -> None:
    fp32, fp16 = grid(2, 4), grid(2, 4, Precision.FP16)
    hint = PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.LATENCY)
    head = HeadToHead.of(round_of({fp32: [100, 102, 99, 101, 100, 98], fp16: [103, 99, 101, 102, 98, 100],
                                   hint: [60, 61, 59, 60, 60, 61]}, {fp32: 12.0, fp16: 11.0, hint: 4.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == fp32 and answer.rule is Rule.CHEAPEST
    assert answer.decided_by is CostStep.PRECISION
    ratio = next(r for r in answer.precision_ratios if r.numerator.contender.config.precision is Precision.FP16)
    assert r_pair(ratio) == (Precision.FP16, Precision.FP32) and not ratio.ratio.clear
    (gain,) = answer.gains
    assert gain.figures.contender.config.mode is Mode.LATENCY and gain.ratio.clear and gain.ratio.value > 1.6
    # under a budget the slower-latency one is out of the running
    only = confirmed_answer(head, max_latency_ms=11.5)
    assert only is not None and only.deploy.contender.config == fp16


def test_each_precision_is_judged_against_fp32_and_the_fastest() -> None:
    """On an AMX host bf16 runs twice fp32: INT8 or fp16 must be judged against bf16 too."""
    fp32, bf16, fp16 = grid(16, 32), grid(16, 32, Precision.BF16), grid(16, 32, Precision.FP16)
    head = HeadToHead.of(round_of({fp32: [100, 101, 99, 100, 100, 101], bf16: [195, 196, 194, 195, 196, 194],
                                   fp16: [65, 66, 64, 65, 65, 66]}, {fp32: 30.0, bf16: 15.0, fp16: 40.0}))
    assert head is not None
    ratios = {(r.numerator.contender.config.precision, r.denominator.contender.config.precision): r.ratio.value
              for r in precision_ratios(head)}
    assert set(ratios) == {(Precision.FP32, Precision.BF16), (Precision.FP16, Precision.FP32),
                           (Precision.FP16, Precision.BF16), (Precision.BF16, Precision.FP32)}
    assert ratios[(Precision.FP16, Precision.BF16)] == pytest.approx(65 / 195, rel=0.01)


def test_openvino_default_is_the_first_gain_and_never_beats_the_answer() -> None:
    leader, cheap, default = grid(2, 4), grid(1, 2), default_of()
    throughput = PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.THROUGHPUT)
    # the default runs 15% above the cheap configuration, beyond noise: the cheap one is not deployed
    head = HeadToHead.of(round_of({leader: [100, 101, 99, 100, 101, 99], cheap: [96, 97, 95, 96, 97, 95],
                                   default: [110, 111, 109, 110, 111, 109], throughput: [99, 100, 98, 99, 100, 98]},
                                  {c: 5.0 for c in (leader, cheap, default, throughput)}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == leader
    assert [s.figures.contender.config.mode for s in answer.gains] == [Mode.DEFAULT, Mode.THROUGHPUT]
    assert not answer.gains[0].ratio.clear and answer.gains[0].ratio.value == pytest.approx(100 / 110, rel=0.01)
    settle = answer.gains[0].settle  # not told apart: the passes (of two 0.25 s windows) that would settle it
    assert settle is not None and settle.seconds == pytest.approx(settle.more * 0.5)
    # the 10% measured lies within 1.5x the rerun term's reach: more passes settle a difference half again that
    assert settle.difference == pytest.approx(math.expm1(FLOOR_FACTOR * rerun_floor()))
    # and where it beats every explicit configuration beyond noise, it is the answer
    ahead = HeadToHead.of(round_of({leader: [100, 101, 99, 100, 101, 99], default: [150, 151, 149, 150, 151, 149]},
                                   {leader: 5.0, default: 5.0}))
    assert ahead is not None
    won = confirmed_answer(ahead)
    assert won is not None and won.deploy.contender.config == default and won.rule is Rule.BASELINE


def test_the_hint_diagnostic_states_what_the_round_measured() -> None:
    latency, twin = PointConfig("CPU", Precision.FP32, 1, 0, 0, Mode.LATENCY), grid(1, 1)
    compiles = {latency: {"PERFORMANCE_HINT": "LATENCY", "ENABLE_HYPER_THREADING": "NO"},
                twin: {"PERFORMANCE_HINT": "THROUGHPUT", "ENABLE_HYPER_THREADING": "YES"}}

    def effect(fps: dict[PointConfig, list[float]]) -> HintEffect:
        round_ = round_of(fps, {c: 5.0 for c in fps})
        contenders = tuple(Contender(k.config, 1, 1, compile_with(k.config, compiles[k.config]), k.config == twin)
                           for k in round_.contenders)
        (found,) = hint_effects(Confirmation("CPU", contenders, round_.windows, round_.passes, round_.window_s))
        return found

    same = effect({latency: [100, 101, 99, 100, 101, 99], twin: [101, 100, 100, 99, 101, 100]})
    assert same.differing == (("ENABLE_HYPER_THREADING", "NO", "YES"), ("PERFORMANCE_HINT", "LATENCY", "THROUGHPUT"))
    assert not same.ratio.clear
    slower = effect({latency: [70, 71, 69, 70, 71, 69], twin: [100, 101, 99, 100, 101, 99]})
    assert slower.ratio.clear and slower.ratio.value == pytest.approx(0.70, abs=0.01)


def compile_with(config: PointConfig, read_back: dict[str, str]) -> CompileInfo:
    return CompileInfo(config.compile_key, {}, 1, "f32", "f32", 1, ("CPU",), 1.0, 1.0, read_back=read_back)


def test_a_restricted_space_that_misses_the_hints_configuration_says_so() -> None:
    """The THROUGHPUT hint ran 2 x 4 and beat a space of one stream with up to two requests beyond noise: the verdict
    says the space missed it and what the space had; one inside the space that the search did not measure is told
    apart, and a hint that did not beat the space is not said at all."""
    one, two = make_point(1, 1, 100.0), make_point(1, 2, 120.0)
    hint = baseline(Mode.THROUGHPUT, 2, 4, 300.0)
    (found,) = inconsistencies([one, two, hint])
    assert found.baseline is hint and found.best is two and found.missed is Missed.OUTSIDE_SPACE
    assert (found.streams, found.nireqs) == ((1,), (1, 2)) and "missed" in inconsistency_text(found)
    (inside,) = inconsistencies([one, make_point(1, 4, 120.0), baseline(Mode.THROUGHPUT, 1, 2, 300.0)])
    assert inside.missed is Missed.NOT_MEASURED
    assert inconsistencies([one, two, baseline(Mode.THROUGHPUT, 2, 4, 90.0)]) == []


def test_a_restricted_sweep_confirms_its_baselines_and_says_whichever_won(tiny_model: Path, tmp_path: Path) -> None:
    """One stream and one request against OpenVINO's hints on the real runtime. Which runs faster is this host's
    business: whatever was measured, the verdict follows the stored figures and the answer, `show` and the JSON say
    it."""
    out = tmp_path / "r.db"
    spec = quick_spec(tiny_model, out, streams=(1,), nireq=(1,), baselines=True, search=Search.SMART,
                      stop=StopRule(window_s=0.1, max_s=1.0), confirm=ConfirmRule(passes=4, window_s=0.1))
    summary = run_sweep(spec)
    assert summary.confirmed == 4  # 1 x 1, the two hint baselines and OpenVINO default
    stored = load_results(out)
    default = next(p for p in stored.points if p.config.mode is Mode.DEFAULT)
    assert default.compile is not None and default.compile.requested == {"PERFORMANCE_HINT": "THROUGHPUT"}
    assert default.config in {c.config for c in stored.confirmations[-1].contenders}  # measured head to head too
    throughput = next(p for p in stored.points if p.config.mode is Mode.THROUGHPUT)
    (one,) = [p for p in stored.points if p.config.mode is Mode.EXPLICIT]
    assert (one.config.streams, one.config.nireq) == (1, 1)
    assert one.measurement is not None and throughput.measurement is not None
    beaten = clearly_worse(Estimate.of(one.measurement.windows), Estimate.of(throughput.measurement.windows))
    missed = Missed.OUTSIDE_SPACE if (throughput.streams, throughput.nireq) != (1, 1) else Missed.APART
    found = [(i.missed, i.streams, i.nireqs) for i in inconsistencies(stored.points) if i.baseline is throughput]
    assert found == ([(missed, (1,), (1,))] if beaten else [])
    rec = recommend(stored.points, confirmations=stored.confirmations)
    assert rec.confirmed and rec.answer is not None
    payload = json.loads(CliRunner().invoke(app, ["recommend", str(out), "--json"]).stdout)
    if rec.answer.rule is Rule.BASELINE:  # the round saw a baseline beat 1 x 1 beyond a rerun's noise: deploy it
        # any of the three, LATENCY's one stream included (it beat 1 x 1 on CI's host once)
        assert rec.winner.config.mode in (Mode.THROUGHPUT, Mode.LATENCY, Mode.DEFAULT)
        assert rec.answer.runner_up is not None and rec.answer.runner_up.figures.contender.config.explicit
        assert payload["deploy"]["mode"] == rec.winner.config.mode.value and payload["rule"]["name"] == "baseline"
    else:  # 1 x 1 stays the answer only where no baseline beat it beyond noise
        over_hint = next(s.ratio for s in rec.answer.gains if s.figures.contender.config.mode is Mode.THROUGHPUT)
        assert rec.winner.config == PointConfig("CPU", Precision.FP32, 1, 1, 1) and over_hint.high >= 1
        assert payload["rule"]["name"] == rec.answer.rule.value
    shown = CliRunner().invoke(app, ["show", str(out)]).stdout
    assert ("not the best:" in shown) == bool(inconsistencies(stored.points))
    assert payload["speed"]["confirmed"] is True
    assert payload["speed"]["fps"] > 0 and set(payload["speed"]["latency_ms"]) == {"median", "p90", "p99"}
    if rec.winner.config.mode is not Mode.LATENCY:  # the gain over LATENCY's, with its interval
        assert payload["gains"][-1]["over"]["name"].startswith("LATENCY hint (")
    assert all(g["fps_ratio"]["low"] <= g["fps_ratio"]["ratio"] for g in payload["gains"])


def test_the_sweep_stores_the_anchor_points(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=None, nireq=None, baselines=True, search=Search.SMART))
    stored = load_results(out)
    cpu = stored.devices["CPU"]
    assert cpu.streams_range is not None
    top = cpu.streams_range[1]
    throughput = next(p for p in stored.points if p.config.mode is Mode.THROUGHPUT)
    measured = {(p.config.streams, p.config.nireq) for p in stored.points if p.config.mode is Mode.EXPLICIT}
    assert (throughput.streams, throughput.nireq) in measured  # the hint's own choice, as an explicit point
    assert (top, top) in measured and (top, 2 * top) in measured  # the top of the stream range


def open_after(confirmation: Confirmation) -> list[int]:
    """Who a further pass of a stored round would measure under the sequential rule."""
    return sorted(still_open(round_fps(confirmation), [c.candidate for c in confirmation.contenders]))


def test_follow_up_passes_measure_only_the_leader_and_what_is_still_open() -> None:
    lead, edge, loser = grid(2, 4), grid(1, 1), grid(2, 1)
    noisy = round_of({lead: [110, 95, 120, 100, 115, 98], edge: [100, 100, 100, 100, 100, 100],
                      loser: [50, 51, 50, 49, 50, 50]}, {lead: 12.0, edge: 4.0, loser: 8.0})
    assert open_after(noisy) == [0, 1]  # the leader and the one not told apart; the clear loser is done
    settled = round_of({lead: [104, 105, 103, 104, 105, 104], edge: [100, 101, 99, 100, 100, 100]},
                       {lead: 12.0, edge: 6.0})
    assert open_after(settled) == [0]  # the leader alone: nothing is left to tell apart


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


def test_a_noisy_round_keeps_the_cheaper_until_the_dearer_is_shown_faster() -> None:
    """6% below a noisy leader, the cheaper configuration is not shown slower: it is deployed, with its price."""
    lead, edge = grid(2, 4), grid(1, 1)
    head = HeadToHead.of(round_of({lead: [110, 95, 120, 100, 115, 98], edge: [100, 100, 100, 100, 100, 100]},
                                  {lead: 12.0, edge: 4.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and answer.deploy.contender.config == edge and answer.rule is Rule.CHEAPEST
    price = next(s.ratio for s in answer.near if s.figures is answer.deploy)
    assert price.value < 1 < price.high and not answer.unresolved


def test_one_beaten_beyond_noise_by_another_is_not_deployed_though_within_noise_of_the_leader() -> None:
    """Within noise is not transitive: a noisy leader holds both, but the steady middle one beats the cheap one."""
    lead, middle, cheap = grid(2, 4), grid(2, 2), grid(1, 1)
    head = HeadToHead.of(round_of({lead: [150, 80, 160, 85, 155, 90], middle: [110, 110, 111, 110, 110, 111],
                                   cheap: [88, 88, 89, 88, 88, 89]}, {lead: 12.0, middle: 8.0, cheap: 4.0}))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None
    within = {s.figures.contender.config for s in (*answer.near, *answer.unresolved)}
    assert within == {middle, cheap}
    assert [s.figures.contender.config for s in answer.unresolved] == [cheap]
    assert answer.deploy.contender.config == middle


def r_pair(r: PrecisionRatio) -> tuple[Precision, Precision]:
    return r.numerator.contender.config.precision, r.denominator.contender.config.precision


def test_a_ratio_the_answer_states_with_a_wide_interval_is_its_caveat_not_none() -> None:
    """bf16 over fp32 read 1.9x with passes from 1.2x to 2.6x: it says faster, not how much, and the caveat says
    so where it said "none: ... the host was quiet enough"."""
    from ov_tuner.analyse.caveat import WIDE_SPAN, CaveatKind, caveat
    from ov_tuner.analyse.recommend import Recommendation
    from ov_tuner.workloads.sweep.present.answer_json import caveat_json
    from ov_tuner.workloads.sweep.present.words.short import caveat_text

    fp32, bf16 = grid(16, 32), grid(16, 32, Precision.BF16)
    steady = HeadToHead.of(round_of({fp32: [100, 101, 99, 100, 100, 101], bf16: [195, 196, 194, 195, 196, 194]},
                                    {fp32: 30.0, bf16: 15.0}))
    shaky = HeadToHead.of(round_of({fp32: [100, 101, 99, 100, 100, 101], bf16: [260, 120, 250, 125, 240, 150]},
                                   {fp32: 30.0, bf16: 15.0}))
    assert steady is not None and shaky is not None

    def caveat_of(head: HeadToHead) -> str:
        answer = confirmed_answer(head)
        assert answer is not None
        deployed = head.figures_of(answer.deploy.contender)
        rec = Recommendation(make_point(16, 32, deployed.fps, precision=Precision.BF16), deployed.fps,
                             deployed.latency, None, None, 90, 2, (), answer)
        found = caveat(rec, [], [])
        assert (found is None) is (head is steady)
        assert found is None or (found.kind is CaveatKind.WIDE and found.wide is not None
                                 and found.wide.ratio.high / found.wide.ratio.low > WIDE_SPAN)
        said = caveat_text(found)
        # the JSON answer carries every figure the caveat's words state
        assert figures_missing([("caveat", said)], {"caveat": caveat_json(found)}) == []
        return said

    assert caveat_of(steady).startswith("none: the round left no contender in doubt, no interval it states is wide")
    said = caveat_of(shaky)
    assert said.startswith("a wide interval: ") and "bf16" in said and "fp32" in said


def test_a_precision_clearly_behind_sends_only_its_best_to_the_round() -> None:
    cpu = DeviceInfo("CPU", "a CPU", (1, 2), 1, ("FP32", "INT8"), "f32")
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32, Precision.INT8),
                     streams=(1, 2), nireq=(1, 2, 4))
    spaces = plan(spec, [cpu])
    int8 = [make_point(2, 4, 1000, precision=Precision.INT8), make_point(2, 2, 990, precision=Precision.INT8),
            baseline(Mode.THROUGHPUT, 2, 2, 980, precision=Precision.INT8)]
    fp32 = [make_point(2, 4, 400), make_point(1, 2, 395), baseline(Mode.THROUGHPUT, 2, 2, 390),
            baseline(Mode.LATENCY, 1, 1, 300), baseline(Mode.DEFAULT, 2, 2, 700)]
    planned = plan_confirmation(int8 + fp32, spaces).configs
    assert {c for c in planned if c.precision is Precision.INT8} == {p.config for p in int8}
    # fp32: its best for the precisions' ratio and OpenVINO default, which the answer is compared with; not its
    # second contender nor its hint baselines
    assert {c for c in planned if c.precision is Precision.FP32} == {fp32[0].config, fp32[4].config}
    # where no precision is clearly ahead, each sends its contenders and baselines as before
    level = [make_point(2, 4, 1000), make_point(2, 2, 990), baseline(Mode.THROUGHPUT, 2, 2, 980)]
    rival = [make_point(2, 4, 1005, precision=Precision.INT8), make_point(2, 2, 985, precision=Precision.INT8)]
    assert set(plan_confirmation(level + rival, spaces).configs) >= {p.config for p in level + rival}


def test_the_search_visits_the_precision_expected_fastest_first() -> None:
    cpu = DeviceInfo("CPU", "a CPU", (1, 2), 1, ("FP32", "BF16", "INT8"), "bf16")
    spec = SweepSpec(model=Path("m.xml"), out=Path("r.db"), precisions=(Precision.FP32, Precision.BF16,
                                                                           Precision.INT8), batches=(1, 2))
    spaces = plan(spec, [cpu])
    ordered = search_order(spaces)
    assert [s.precision for s in ordered] == [Precision.INT8] * 2 + [Precision.BF16] * 2 + [Precision.FP32] * 2
    assert sorted(map(id, ordered)) == sorted(map(id, spaces))  # every space, once
    # only a smart search screened for a round shortens its windows
    assert default_window(Search.SMART, True) < default_window(Search.SMART, False) == default_window(Search.GRID,
                                                                                                        True)
