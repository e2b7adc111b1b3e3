"""The records that cross module boundaries: what was asked for, what the device did, what was measured.

Frozen dataclasses and enums, grouped by what they describe; every name is importable from here.
"""

from ov_tuner.schema.config import (
    ACCURACY_INPUTS,
    AUTO,
    CompileKey,
    ConfirmRule,
    InputMode,
    Mode,
    PointConfig,
    Precision,
    Search,
    Settings,
    StopRule,
    SweepSpec,
    settings_text,
)
from ov_tuner.schema.devices import CompileInfo, DeviceInfo
from ov_tuner.schema.measurement import (
    FOREIGN_CPU_LIMIT,
    STEAL_LIMIT,
    Ending,
    LatencyStats,
    Measurement,
    Verdict,
    Window,
    counted,
    t975,
    t_quantile,
)
from ov_tuner.schema.records import (
    Accuracy,
    ColdStart,
    ColdStartSample,
    LayerTime,
    OutputAccuracy,
    Profile,
    TypeTime,
)
from ov_tuner.schema.results import Confirmation, Contender, Environment, PointResult, RoundWindow, Status

__all__ = [
    "ACCURACY_INPUTS",
    "AUTO",
    "FOREIGN_CPU_LIMIT",
    "STEAL_LIMIT",
    "Accuracy",
    "ColdStart",
    "ColdStartSample",
    "CompileInfo",
    "CompileKey",
    "ConfirmRule",
    "Confirmation",
    "Contender",
    "DeviceInfo",
    "Ending",
    "Environment",
    "InputMode",
    "LatencyStats",
    "LayerTime",
    "Measurement",
    "Mode",
    "OutputAccuracy",
    "PointConfig",
    "PointResult",
    "Precision",
    "Profile",
    "RoundWindow",
    "Search",
    "Settings",
    "Status",
    "StopRule",
    "SweepSpec",
    "TypeTime",
    "Verdict",
    "Window",
    "counted",
    "settings_text",
    "t975",
    "t_quantile",
]
