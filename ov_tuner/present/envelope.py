"""The one envelope every answer's JSON comes in (`recommend --json`, a single model's or a pipeline's): its schema
version, which kind of answer it holds, and the fields every kind has (what was held back, the caveat, the box it was
measured in, the terminal's words). Documented in docs/answer-json.md; ANSWER_SCHEMA_VERSION changes when a key changes
meaning or goes away (new keys do not change it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ov_tuner.schema import Box

if TYPE_CHECKING:
    from ov_tuner.stats.settle import Settling

# 2: a count of passes is keyed "passes" (a ratio's and a gain's, an LLM's answer's; a pipeline contender's
# "per_pass", "fps_held_per_pass", "arrivals_per_pass" and "passes"), where 1 keyed them "rounds" and "per_round".
ANSWER_SCHEMA_VERSION = 2


def envelope(kind: str, body: dict[str, Any], box: Box | None, caveat: dict[str, Any] | None,
             held_back: dict[str, Any] | None, says: dict[str, str]) -> dict[str, Any]:
    """An answer's JSON: the envelope's keys around its kind's own `body` (`kind`: which workload's answer it is, as
    docs/answer-json.md names it: "model" for a sweep's), the words (`says`) last."""
    return {"schema_version": ANSWER_SCHEMA_VERSION, "kind": kind, **body, "held_back": held_back,
            "caveat": caveat,
            "box": None if box is None else {
                "host_cpus": box.host_cpus, "cpuset": list(box.cpuset), "quota_cpus": box.quota_cpus,
                "quota_source": box.quota_source, "memory_limit_bytes": box.memory_limit_bytes, "cpus": box.cpus},
            "says": says}


def settle_json(settle: Settling | None, unit: str) -> dict[str, Any] | None:
    """What would settle a comparison left open (ov_tuner.stats.settle), as JSON: None where it is decided."""
    return None if settle is None else {"difference": settle.difference, unit: settle.more, "seconds": settle.seconds}
