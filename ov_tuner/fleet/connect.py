"""Joining a Ray cluster, for every command that runs on a fleet: the cluster's targets, or one line that says how to
start or join one."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import ray

from ov_tuner.errors import BadInputError, Input
from ov_tuner.fleet.cluster import HEAD_HINT, JOIN_HINT, RESOURCE, Target, targets


@contextmanager
def connected(address: str) -> Iterator[list[Target]]:
    """Join the cluster at `address` (`auto`: the one this machine belongs to) and list its targets."""
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise BadInputError(f"{Input.ADDRESS} {address}: no Ray cluster there ({str(e).splitlines()[0]}); start one "
                            f"with `{HEAD_HINT}` or give the head's address "
                            "(host:6379)") from e
    try:
        chosen = targets(ray.nodes())
        if not chosen:
            raise BadInputError(f"the Ray cluster at {address} has no node offering the resource {RESOURCE}; join "
                                f"each target host with `{JOIN_HINT}`")
        yield chosen
    finally:
        ray.shutdown()
