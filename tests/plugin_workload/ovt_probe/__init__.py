"""ovt-probe: an ov-tuner workload installed as a plug-in (tests/test_plugin.py)."""

from ov_tuner.plugin import Writer

# Its results file, as it registers (ovt_probe.registration).
WRITER = Writer("probe", "a probe's")
