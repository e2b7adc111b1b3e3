"""What a front end is told as a sweep goes: the library itself never prints."""

from __future__ import annotations

from typing import Protocol

from ov_tuner.schema import PointConfig, PointResult
from ov_tuner.workloads.sweep.notices import Notice


class SweepProgress(Protocol):
    def planned(self, to_measure: int, already_measured: int) -> None: ...

    def note(self, notice: Notice) -> None: ...

    def starting(self, config: PointConfig) -> None: ...

    def finished(self, point: PointResult) -> None: ...

    def dropped(self, count: int) -> None: ...


class Silent:
    """Progress that goes nowhere: the library's default."""

    def planned(self, to_measure: int, already_measured: int) -> None:
        pass

    def note(self, notice: Notice) -> None:
        pass

    def starting(self, config: PointConfig) -> None:
        pass

    def finished(self, point: PointResult) -> None:
        pass

    def dropped(self, count: int) -> None:
        pass
