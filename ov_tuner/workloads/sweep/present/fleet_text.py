"""The fleet's answer in the terminal: one row per host, device and precision, and the deployment per host."""

from __future__ import annotations

from dataclasses import dataclass

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.points import Best
from ov_tuner.present.document import Table, table
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.words.findings import short_label


@dataclass(frozen=True)
class HostResults:
    """A host's name in the fleet, what its file holds, and the line that stopped it early (if any)."""

    name: str
    results: StoredResults | None
    answer: Answer | None = None  # what `recommend` says to deploy there
    problem: str | None = None
    bests: tuple[Best, ...] = ()  # the search's best per device and precision (best_per_device_precision)


def fleet_table(hosts: list[HostResults]) -> Table:
    """The search's best per device and precision (each point measured on its own), and beside it what to deploy
    on that host: the confirmation round's answer where one ran, which may differ from a best measured apart."""
    rows = []
    for host in hosts:
        results, bests = host.results, host.bests
        if results is None or not bests:
            rows.append([host.name, "-", "-", "-", "-", "-", "-", "-", host.problem or "nothing measured"])
            continue
        env = results.environment
        deploy = _deployment(host.answer)
        for i, best in enumerate(bests):
            first = i == 0
            rows.append([host.name if first else "", env.cpu_model if first else "",
                         ", ".join(results.devices) if first else "", best.device, best.precision.value,
                         short_label(best.point), f"{best.fps:.1f}", f"{best.point.latency_ms(90):.2f}",
                         deploy if first else ""])
    return table(("host", "CPU", "devices", "device", "precision", "search's best", "FPS", "p90 ms", "deploy"), rows,
                 "The fleet: the best configuration per host, device and precision", ("FPS", "p90 ms"))


def _deployment(answer: Answer | None) -> str:
    """What `recommend` says to deploy on this host: confirmed head to head where a round ran."""
    if answer is None:
        return "no explicit configuration measured"
    rec = answer.recommendation
    how = "confirmed head to head" if rec.confirmed else "not confirmed"
    return f"{rec.winner.config.label()}: {rec.fps:.1f} FPS ({how})"
