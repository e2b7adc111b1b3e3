"""The whole answer to a results file, computed once, as one immutable record: what to deploy and what it ran, its
speed and every gain with its interval, the rule that chose it, each precision's speed and accuracy trade, the
precisions measured as another, what the accuracy limit left out, the one caveat, and (through the deployed point)
the properties to deploy it with and the input shapes it compiled. Every output (the terminal, the report,
`recommend --json`, the deploy forms) only renders this record, so a program reading the JSON knows what a person
reading the terminal knows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.accuracy import DEFAULT_LIMIT, AccuracyLimit, accuracy_of
from ov_tuner.analyse.caveat import Caveat, caveat
from ov_tuner.analyse.inputs import InputShape, measured_inputs
from ov_tuner.analyse.precisions import PrecisionSpeed, int8_against_fastest_float, precision_speeds, ran_by_scope
from ov_tuner.analyse.recommend import NothingMeetsBudget, Recommendation, results_answer
from ov_tuner.schema import Accuracy, Box, Merged, ModelInputs, Precision, Quantization
from ov_tuner.store.results import StoredResults


@dataclass(frozen=True)
class Int8Trade:
    """What INT8 buys and costs beside the deployed configuration (its device, --set properties and batch): its best
    FPS against fp32's and against the fastest float precision's where that is not fp32 (the one it has to beat), and
    its outputs against FP32's."""

    against_fp32: PrecisionSpeed | None
    against_fastest_float: PrecisionSpeed | None
    accuracy: Accuracy | None


@dataclass(frozen=True)
class Answer:
    """What a results file answers, with everything the outputs say about it. `ran` holds, for the deployed device
    and batch, each precision measured and what it ran (CompileInfo.ran's words); `merged` the precisions asked for
    that the device runs as another, so they were measured once, as that one."""

    recommendation: Recommendation
    results: Path
    model: str  # the model the sweep was given: the deploy forms load it, or the IR made from it
    inputs: ModelInputs | None  # the sweep's --shape and --layout, which the deploy forms apply again
    input_shapes: tuple[InputShape, ...] | None  # the deployed point's inputs as compiled (None: not read here)
    quantization: Quantization | None
    limit: AccuracyLimit
    ran: tuple[tuple[Precision, str], ...]
    merged: tuple[Merged, ...]
    int8: Int8Trade | None
    caveat: Caveat | None
    box: Box | None  # what the sweep could use of its host: the deploy forms for containers hold it


def answer_of(results: StoredResults, limit: AccuracyLimit = DEFAULT_LIMIT, max_latency_ms: float | None = None,
              percentile: int = 90, device: str | None = None, precision: Precision | None = None,
              read_inputs: bool = True) -> Answer:
    """The answer to `results` under a latency budget and an accuracy limit; NothingMeetsBudget where no measured
    configuration meets them. Without `read_inputs`, the model is not read again for its input shapes (None): what
    prints no deploy form (`show`) then reads the results file alone, without loading OpenVINO."""
    rec = results_answer(results, limit, max_latency_ms, percentile, device, precision)
    deployed = rec.winner.config
    scope, batch = deployed.scope, deployed.batch
    swept = {p.config.precision for p in results.points if p.config.device == deployed.device}
    ran = tuple(sorted(((p, words) for (s, p, b), words in ran_by_scope(results.points).items()
                        if (s, b) == (deployed.device, batch)), key=lambda item: list(Precision).index(item[0])))
    model = results.environment.model_path
    return Answer(recommendation=rec, results=results.path, model=model, inputs=results.inputs,
                  input_shapes=measured_inputs(rec.winner, model, results.inputs) if read_inputs else None,
                  quantization=results.quantization,
                  limit=limit, ran=ran,
                  merged=tuple(m for m in results.merged if m.device == deployed.device and m.precision not in swept),
                  int8=_int8_trade(results, scope, batch, deployed.device),
                  caveat=caveat(rec, results.accuracies, results.points), box=results.environment.box)


def answer_if_any(results: StoredResults, read_inputs: bool = True) -> Answer | None:
    """The default answer to `results`, or None where the file holds no explicit configuration to deploy."""
    try:
        return answer_of(results, read_inputs=read_inputs)
    except NothingMeetsBudget:
        return None


def _int8_trade(results: StoredResults, scope: str, batch: int, device: str) -> Int8Trade | None:
    """INT8's trade at the deployed scope and batch, where int8 was measured there."""
    if not any(p.ok and p.config.heatmap_key == (scope, Precision.INT8, batch) for p in results.points):
        return None
    return Int8Trade(precision_speeds(results.points, results.confirmations).get((scope, Precision.INT8, batch)),
                     int8_against_fastest_float(results.points, results.confirmations).get((scope, batch)),
                     accuracy_of(results.accuracies, device, Precision.INT8, batch))
