"""Calibration and held-apart inputs for quantization, at batch 1, as the model's own inputs take them.

With images, every other image (in name order) calibrates and the rest are held apart: accuracy is never measured
on an image NNCF calibrated on. Without images, generated inputs calibrate (seeds from CALIBRATION_SEED on) and
other seeds are held apart; that gives a speed figure, since noise says little about real data's accuracy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import openvino as ov

from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import BadInputError, Input
from ov_tuner.model.generated import generated_inputs
from ov_tuner.model.inputs import as_model_input, image_input

# Generated calibration inputs use seeds from here, far from the accuracy comparison's (0, 1, 2, ...).
CALIBRATION_SEED = 1_000_000


def split_images(images: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Images for calibration (even positions) and held apart for accuracy (odd positions): disjoint, both sides
    spread over the whole folder."""
    if len(images) < 2:
        raise BadInputError(f"{Input.IMAGES}: int8 needs at least 2 images, one to calibrate on and one to measure "
                            f"accuracy on; the folder holds {len(images)}")
    return images[0::2], images[1::2]


class Inputs(Sequence[dict[str, np.ndarray]]):
    """Input sets made when asked for (a few hundred generated sets of a large input would not fit in memory)."""

    def __init__(self, ports: list[ov.Output], seeds: range, images: list[np.ndarray] | None = None) -> None:
        """One input set per seed; with `images`, one per image (as many as seeds)."""
        assert images is None or len(images) == len(seeds)
        self._ports, self._seeds, self._images = ports, seeds, images
        self._image_port = image_input(ports) if images is not None else None

    def __len__(self) -> int:
        return len(self._seeds)

    def __getitem__(self, index: int) -> dict[str, np.ndarray]:  # type: ignore[override]
        if not 0 <= index < len(self):
            raise IndexError(index)
        inputs = generated_inputs(self._ports, self._seeds[index])
        if self._image_port is not None:  # with images: theirs on the image input, generated on any other
            assert self._images is not None
            inputs[self._image_port.get_any_name()] = as_model_input([self._images[index]], self._image_port)
        return inputs

    def __iter__(self) -> Iterator[dict[str, np.ndarray]]:
        return (self[i] for i in range(len(self)))

    def identity(self) -> str:
        """What the inputs are, for the cache key: the images' pixels, or the seeds, and the input shapes."""
        digest = hashlib.sha256()
        for port in self._ports:
            digest.update(f"{port.get_any_name()}{port.get_shape()}{port.get_element_type()}".encode())
        for image in self._images or []:
            digest.update(np.ascontiguousarray(image).tobytes())
        digest.update(f"{self._seeds.start}:{self._seeds.stop}".encode())
        return digest.hexdigest()


@dataclass(frozen=True)
class CalibrationSets:
    """What NNCF calibrates on and what accuracy is measured on, never the same input."""

    calibration: Inputs
    held_apart: Inputs
    images: bool


def calibration_sets(model: ov.Model, images: list[np.ndarray] | None, shapes: dict[str, list[int]],
                     calibration_count: int, held_apart_count: int) -> CalibrationSets:
    """The two sets for `model` at batch 1 (its other dimensions from `shapes`): at most `calibration_count`
    calibration inputs (the first of every other image, or generated), and the held-apart ones."""
    static = model.clone()
    Runtime.reshape(static, 1, shapes)
    ports = list(static.inputs)
    if images is None:
        return CalibrationSets(Inputs(ports, range(CALIBRATION_SEED, CALIBRATION_SEED + calibration_count)),
                               Inputs(ports, range(held_apart_count)), images=False)
    calibrating, held = split_images(images)
    calibrating = calibrating[:calibration_count]
    return CalibrationSets(Inputs(ports, range(len(calibrating)), calibrating),
                           Inputs(ports, range(len(calibrating), len(calibrating) + len(held)), held), images=True)
