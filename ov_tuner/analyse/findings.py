"""What the analysis finds in a results file beside the answer, computed once as one record: where more streams or
requests stop paying, baselines that beat the search and the best points against the baselines, each precision
against another and against fp32, virtual devices against their members, the cameras each configuration served,
whether each soak held, and the diagnostics. `show` and the report only word it (ov_tuner.present)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ov_tuner.analyse.baselines import (
    BaselineStanding,
    BestTuned,
    Inconsistency,
    baseline_standings,
    best_tuned,
    inconsistencies,
)
from ov_tuner.analyse.capacity import Served, latest_served
from ov_tuner.analyse.diagnostics import Diagnostic, HowMeasured, diagnostics, how_measured
from ov_tuner.analyse.drift import SoakDrift, soak_drift
from ov_tuner.analyse.hints import HintEffect, hint_effects
from ov_tuner.analyse.precisions import (
    PrecisionComparison,
    PrecisionSpeed,
    all_precision_comparisons,
    int8_against_fastest_float,
    precision_speeds,
    ran_by_scope,
)
from ov_tuner.analyse.saturation import Saturation, saturation
from ov_tuner.analyse.virtual import VirtualComparison, virtual_comparisons
from ov_tuner.schema import Precision
from ov_tuner.store.results import StoredResults


@dataclass(frozen=True)
class Findings:
    """`beaten`: the baselines faster beyond noise than the best searched point; `best` the best point per device and
    precision against its baselines, and `baselines` each baseline against the best tuned point; `speeds` each
    precision's best against fp32's and `int8_vs_float` int8's against the fastest float precision's (by device and
    batch); `ran` what each device, precision and batch ran; `served` the latest capacity run of each configuration and
    target, most cameras first; `soaks` every soak with its drift, in the file's order; `hint_effects` what a hint
    set besides streams in the latest round; `measured` how the points were measured."""

    saturation: tuple[Saturation, ...]
    beaten: tuple[Inconsistency, ...]
    best: tuple[BestTuned, ...]
    baselines: tuple[BaselineStanding, ...]
    comparisons: tuple[PrecisionComparison, ...]
    speeds: Mapping[tuple[str, Precision, int], PrecisionSpeed]
    int8_vs_float: Mapping[tuple[str, int], PrecisionSpeed]
    ran: Mapping[tuple[str, Precision, int], str]
    virtual: tuple[VirtualComparison, ...]
    served: tuple[Served, ...]
    soaks: tuple[SoakDrift, ...]
    diagnostics: tuple[Diagnostic, ...]
    hint_effects: tuple[HintEffect, ...]
    measured: HowMeasured


def findings_of(results: StoredResults) -> Findings:
    points, confirmations = results.points, results.confirmations
    beaten = tuple(inconsistencies(points))
    return Findings(saturation=tuple(saturation(points, devices=results.devices)), beaten=beaten,
                    best=tuple(best_tuned(points, beaten)), baselines=tuple(baseline_standings(points)),
                    comparisons=tuple(all_precision_comparisons(points, confirmations)),
                    speeds=precision_speeds(points, confirmations),
                    int8_vs_float=int8_against_fastest_float(points, confirmations), ran=ran_by_scope(points),
                    virtual=tuple(virtual_comparisons(points, results.devices, confirmations)),
                    served=tuple(latest_served(results.capacities)),
                    soaks=tuple(soak_drift(s) for s in results.soaks),
                    diagnostics=tuple(diagnostics(points)),
                    hint_effects=tuple(hint_effects(confirmations[-1])) if confirmations else (),
                    measured=how_measured(points))
