"""The tables every output shares, as document blocks: every point, the best per device and precision, the
confirmation round, the baselines, and the files of a comparison."""

from __future__ import annotations

from collections.abc import Sequence

from ov_tuner.analyse.baselines import BaselineStanding, BestTuned
from ov_tuner.analyse.compare import Comparison
from ov_tuner.present.document import Table, table
from ov_tuner.present.words.numbers import gain, signed
from ov_tuner.schema import Confirmation, Mode, PointResult
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.words.answer import precision_cell, round_label
from ov_tuner.workloads.sweep.present.words.findings import matched_label


def latest_confirmation(confirmations: list[Confirmation]) -> HeadToHead | None:
    """The most recent confirmation round, read as ratios: every device of a sweep meets in one."""
    return HeadToHead.of(confirmations[-1]) if confirmations else None


def ran(p: PointResult) -> str:
    """What ran, in the one wording of CompileInfo.ran: 'f32', 'bf16', 'f32 math, f16 weights'."""
    return p.compile.ran if p.compile is not None else "-"


def streams_cell(p: PointResult) -> str:
    """Streams asked and, where the device chose or changed them, what ran; a virtual device's hint with its requests
    ('CUMULATIVE_THROUGHPUT, 4 requests')."""
    if p.config.mode is Mode.EXPLICIT:
        return str(p.config.streams) if p.streams == p.config.streams else f"{p.config.streams}->{p.streams}"
    if p.config.explicit:
        return p.config.short_label(p.streams, p.nireq)
    batched = " (auto-batched)" if p.compile is not None and p.compile.auto_batched else ""
    return f"{p.config.mode.hint_name}: {p.streams}{batched}"


def points_table(results: StoredResults) -> Table:
    """Every stored point with its figures, how its measurement ended and its cold costs."""
    env = results.environment
    rows = []
    for p in results.points:
        c = p.config
        head = [c.device, "-" if c.mode is Mode.DEFAULT else c.precision.value, ran(p), str(c.batch), streams_cell(p),
                str(p.nireq)]
        if p.measurement is None:
            rows.append(head + ["failed"] + [""] * 8)
            continue
        m, lat = p.measurement, p.measurement.latency
        ended = m.ended.value
        ended += f" ({m.disturbed_windows} disturbed)" if m.disturbed_windows else ""
        rows.append([*head, f"{m.fps:.1f}", f"{m.fps_ci95[0]:.1f}..{m.fps_ci95[1]:.1f}" if m.fps_ci95 else "-", ended,
                            f"{lat.median:.3f}", f"{lat.p90:.3f}", f"{lat.p99:.3f}",
                            f"{m.fps_cv:.1%}" if m.fps_cv is not None else "-",
                            f"{m.cpu_ms_per_request:.2f}" if m.cpu_ms_per_request is not None else "-",
                            f"{p.compile.first_infer_ms:.2f}" if p.compile else "-"])
    numeric = ("batch", "nireq", "FPS", "FPS 95% CI", "median ms", "p90 ms", "p99 ms", "FPS CV", "CPU ms/req",
               "1st inf. ms")
    return table(("device", "prec", "ran", "batch", "streams", "nireq", "FPS", "FPS 95% CI", "ended", "median ms",
                  "p90 ms", "p99 ms", "FPS CV", "CPU ms/req", "1st inf. ms"), rows,
                 f"{env.model_name}: every point (OpenVINO {env.ov_version.split('-')[0]}, {env.cpu_model})", numeric)


def best_table(bests: Sequence[BestTuned]) -> Table:
    """The best explicit point per device and precision as the search measured it, against the baselines."""
    rows = []
    for tuned in bests:
        best, p = tuned.best, tuned.best.point
        gains = ", ".join(f"{g.fps_gain:+.0%} vs {g.baseline.config.mode.hint_name}" for g in tuned.gains) or "-"
        if tuned.beaten_by is not None:
            gains += f" ({tuned.beaten_by.baseline.config.mode.hint_name} is faster beyond noise)"
        cpu = p.measurement.cpu_ms_per_request if p.measurement else None
        rows.append([p.config.scope, best.precision.value, ran(p), str(p.config.batch), streams_cell(p),
                     str(p.config.nireq), f"{best.fps:.1f}", f"{p.latency_ms(50):.3f}", f"{p.latency_ms(90):.3f}",
                     f"{cpu:.2f}" if cpu is not None else "-", gains])
    return table(("device", "precision", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms",
                  "CPU ms/req", "vs baselines, measured apart"), rows,
                 "Best throughput per device and precision, as the search measured it",
                 ("FPS", "median ms", "p90 ms", "CPU ms/req"))


def headtohead_table(results: StoredResults) -> Table | None:
    """The latest confirmation round: every contender's FPS and p90 over the interleaved passes, against the leader."""
    head = latest_confirmation(results.confirmations)
    if head is None:
        return None
    leader = head.leader
    assert leader is not None  # HeadToHead.of names it
    rows = [[f.contender.config.scope, precision_cell(f), str(f.contender.config.batch), round_label(f),
             f"{f.fps:.1f}", f"{f.latency_ms(90):.3f}", "leader" if ratio is None else gain(ratio)]
            for f, ratio in sorted(zip(head.figures, head.against_leader, strict=True), key=lambda p: -p[0].fps)]
    return table(("device", "precision", "batch", "configuration", "FPS", "p90 ms", "vs the leader (95%)"), rows,
                 f"Head to head: the leader and every contender over {leader.windows} interleaved passes of "
                 f"{head.confirmation.window_s:g} s windows", ("FPS", "p90 ms"))


def baselines_table(standings: Sequence[BaselineStanding]) -> Table:
    """What OpenVINO chose under each hint, and left alone, against the best tuned point, measured apart."""
    rows = []
    for standing in standings:
        base, g = standing.baseline, standing.gain
        c = base.config
        gain_text = "-" if g is None else \
            f"{signed(g.fps_gain, percent=True)} ({g.tuned.config.short_label(g.tuned.streams, g.tuned.nireq)})"
        batched = "yes" if base.compile is not None and base.compile.auto_batched else "no"
        rows.append([c.scope, "-" if c.mode is Mode.DEFAULT else c.precision.value, ran(base), str(c.batch),
                     c.mode.hint_name, str(base.streams), str(base.nireq), batched, f"{base.fps:.1f}",
                     f"{base.latency_ms(90):.2f}", gain_text])
    return table(("device", "precision", "ran", "batch", "baseline", "streams chosen", "nireq (optimal)",
                  "auto-batched", "FPS", "p90 ms", "best tuned gain (measured apart)"), rows,
                 numeric=("FPS", "p90 ms"))


def comparison_table(comparison: Comparison) -> Table:
    """Every configuration measured in all files: FPS in each, and each file's FPS and p90 over the first's."""
    n = len(comparison.files)
    header = ["configuration", *[f"file {i} FPS" for i in range(1, n + 1)]]
    header += [f"file {i}/1 {what}" for i in range(2, n + 1) for what in ("FPS", "p90")]
    rows = [[matched_label(m), *(f"{p.fps:.1f}" for p in m.points),
             *(f"{r:.2f}x" for pair in zip(m.fps_ratios()[1:], m.p90_ratios()[1:], strict=True) for r in pair)]
            for m in comparison.matched]
    return table(header, rows, "Configurations measured in every file (ratios against file 1)", tuple(header[1:]))
