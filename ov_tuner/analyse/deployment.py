"""What a deployment compiles with to run what was measured: the properties asked for and the threading the device
chose, as read back."""

from __future__ import annotations

from ov_tuner.schema import PointResult

# What the device chose for an explicit configuration besides its streams, as read back: set on deployment so
# that it runs what was measured.
CHOSEN_THREADING = ("INFERENCE_NUM_THREADS", "ENABLE_HYPER_THREADING", "ENABLE_CPU_PINNING")


def deploy_properties(point: PointResult) -> dict[str, str]:
    """What to compile with for the deployment to run what was measured: the properties asked for (PERFORMANCE_HINT,
    NUM_STREAMS, INFERENCE_PRECISION_HINT, --set ones) and, for an explicit configuration, the threading the device
    chose for it as read back. A baseline leaves OpenVINO to choose again on the deployment machine."""
    assert point.compile is not None, "only a compiled point can be deployed"
    properties = dict(point.compile.requested)
    if point.config.explicit:
        properties.update({k: v for k, v in point.compile.read_back.items() if k in CHOSEN_THREADING})
    return dict(sorted(properties.items()))
