"""The compiled models of one search space, kept warm: a climb often steps back to the streams it just left."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import openvino as ov

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.native import PointFailure
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import CompileInfo, CompileKey, DeviceInfo, PointConfig

# Compiled models kept alive at once within a space.
COMPILED_KEPT = 2


@dataclass
class Compiled:
    compiled: ov.CompiledModel
    info: CompileInfo
    compile_id: int


class CompiledCache:
    """The compiled models of one space, the most recent COMPILED_KEPT kept alive; a failed compile is
    remembered so that its other request counts fail at once. `stored` files each new compile and says its id;
    `compiled` is told of every compile that succeeded."""

    def __init__(self, compiler: Compiler, device: DeviceInfo, stored: Callable[[CompileInfo], int],
                 compiled: Callable[[CompileInfo], None]) -> None:
        self._compiler, self._device, self._stored, self._compiled = compiler, device, stored, compiled
        self._alive: OrderedDict[CompileKey, Compiled] = OrderedDict()
        self._failed: dict[CompileKey, Exception] = {}

    def get(self, config: PointConfig) -> tuple[Compiled, bool]:
        """The compiled model of the configuration's key and whether it was compiled just now (and so needs its
        warm-up)."""
        key = config.compile_key
        if key in self._failed:
            raise self._failed[key]
        if key in self._alive:
            self._alive.move_to_end(key)
            return self._alive[key], False
        while len(self._alive) >= COMPILED_KEPT:
            self._alive.popitem(last=False)
        try:
            compiled, info = self._compiler.compile(key, self._device)
        except (PointFailure, OvTunerError) as e:
            self._failed[key] = e
            raise
        self._compiled(info)
        self._alive[key] = Compiled(compiled, info, self._stored(info))
        return self._alive[key], True

    def clear(self) -> None:
        self._alive.clear()
