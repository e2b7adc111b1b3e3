"""A pipeline's stages compiled for one split at a time, and each stage alone for its solo settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import openvino as ov

from ov_tuner.devices.compiler import Compiler
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.schema import DeviceInfo, PointResult, Precision, Quantization, Status
from ov_tuner.workloads.pipeline.schema import Pipeline, Split, StageRan, StageSetting, stage_config
from ov_tuner.workloads.pipeline.trial import StageRunner

# Seconds each compiled split runs closed loop, unmeasured, before its first trial.
WARMUP_S = 0.3


class SplitCompiler:
    """The stages compiled for one split at a time (recompiled when the split changes, warmed up after), and each
    stage alone for its solo settings."""

    def __init__(self, pipeline: Pipeline, compilers: Sequence[Compiler], devices: Sequence[DeviceInfo],
                 quantized: Mapping[int, Quantization]) -> None:
        """`quantized`: how each stage's INT8 IR was made, by stage index, filled as its compiler finds or makes it."""
        self.pipeline, self.compilers, self.devices, self.quantized = pipeline, compilers, devices, quantized
        self._split: Split | None = None
        self._compiled: list[ov.CompiledModel] = []
        self._runners: list[StageRunner] = []
        self._ran: tuple[StageRan, ...] = ()

    def split(self, split: Split) -> tuple[list[StageRunner], tuple[StageRan, ...]]:
        if split != self._split:
            self.close()
            for index, (stage, setting) in enumerate(zip(self.pipeline.stages, split.stages, strict=True)):
                config = stage_config(stage, setting)
                compiled, info = self.compilers[index].compile(config.compile_key, self.devices[index])
                nireq = setting.nireq or info.optimal_nireq
                with RequestLoop(compiled, nireq, 1) as loop:
                    loop.warm_up(WARMUP_S)
                self._compiled.append(compiled)
                self._runners.append(StageRunner(stage, compiled, nireq))
                properties = PointResult(config, Status.OK, info).deploy_properties()
                made = self.quantized.get(index) if config.precision is Precision.INT8 else None
                self._ran += (StageRan(tuple(properties.items()), nireq, info.num_streams, info.executed_precision,
                                       ir=info.ir_path, ir_precision=config.precision.value,
                                       quantize=made.command if made is not None and not made.given else ""),)
            self._split = split
        return self._runners, self._ran

    def solo_fps(self, index: int, setting: StageSetting, seconds: float) -> float:
        """FPS of one stage alone, closed loop, at `setting`: one window after a warm-up."""
        self.close()
        config = stage_config(self.pipeline.stages[index], setting)
        compiled, _ = self.compilers[index].compile(config.compile_key, self.devices[index])
        with RequestLoop(compiled, setting.nireq, 1) as loop:
            loop.warm_up(min(WARMUP_S, seconds))  # as long as the window, at most: a short window is a quick look
            window, _ = loop.visit(seconds)
        del compiled
        return window.fps

    def close(self) -> None:
        self._runners, self._ran, self._split = [], (), None
        self._compiled.clear()
