"""Which nodes of a Ray cluster are targets, which of them share a machine, and what each one's file is called.

Pure functions over the node records `ray.nodes()` returns, so the naming rules are tested without a cluster.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

RESOURCE = "ov_tuner_host"  # a node joins the fleet with `ray start ... --resources '{"ov_tuner_host": 1}'`
JOIN_HINT = f"""ray start --address ADDRESS --resources '{{"{RESOURCE}": 1}}'"""
HEAD_HINT = f"""ray start --head --resources '{{"{RESOURCE}": 1}}'"""  # Ray's flags, not ov-tuner's


@dataclass(frozen=True)
class Target:
    """One node to sweep on. `machine` is its IP address: nodes that share one share the CPU, and are swept one
    after the other. `stem` names its results file, the same on every run so that a rerun resumes it."""

    node_id: str
    node_name: str
    hostname: str
    machine: str
    stem: str


def targets(nodes: list[dict[str, Any]]) -> list[Target]:
    """The alive nodes that offer RESOURCE, in a stable order, each with a unique file stem: the hostname, with
    the node's name added where the user gave one (`ray start --node-name`), and the node id's start added
    only where two would still collide."""
    offered = sorted((n for n in nodes if n.get("Alive") and n.get("Resources", {}).get(RESOURCE, 0) >= 1),
                     key=lambda n: (n["NodeManagerHostname"], n.get("NodeName", ""), n["NodeID"]))
    stems = [_stem(n) for n in offered]
    taken = Counter(stems)
    return [Target(n["NodeID"], n.get("NodeName", ""), n["NodeManagerHostname"], n["NodeManagerAddress"],
                   stem if taken[stem] == 1 else f"{stem}-{n['NodeID'][:8]}")
            for n, stem in zip(offered, stems, strict=True)]


def _stem(node: dict[str, Any]) -> str:
    hostname = node["NodeManagerHostname"]
    name = node.get("NodeName", "")
    given = name and name not in (hostname, node["NodeManagerAddress"])  # Ray names a node by its IP by default
    return _safe(f"{hostname}-{name}" if given else hostname)


def _safe(text: str) -> str:
    """A file name on any file system: letters, digits, '.', '_' and '-'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text) or "host"


def by_machine(chosen: list[Target]) -> dict[str, list[Target]]:
    """The targets grouped by machine, in order: each group is swept one node at a time, groups side by side."""
    groups: dict[str, list[Target]] = {}
    for target in chosen:
        groups.setdefault(target.machine, []).append(target)
    return groups
