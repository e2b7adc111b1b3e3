"""What goes into the requests: generated data, or real images read with OpenCV.

Images are decoded once (BGR, 8-bit, as OpenCV gives them) and resized to the model's input size on the
host; the model gets a PrePostProcessor step that takes 8-bit NHWC BGR and converts it to its own
element type, layout and RGB order, as a deployed pipeline would. Batches cycle through the images, a
different batch for each request.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import openvino as ov
from openvino.preprocess import ColorFormat, PrePostProcessor

from ov_tuner.errors import BadInputError, Input, ModelError
from ov_tuner.model.generated import fill_inputs, input_sets

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


def load_images(folder: Path) -> list[np.ndarray]:
    """Every PNG, JPEG and BMP in `folder`, decoded; one unreadable file stops with its name."""
    if not folder.is_dir():
        raise BadInputError(f"{Input.IMAGES}: {folder} is not a folder; give a folder of .png, .jpg or .bmp images")
    files = sorted(f for f in folder.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise BadInputError(f"{Input.IMAGES}: {folder} holds no .png, .jpg or .bmp image")
    images = []
    for path in files:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise BadInputError(f"{Input.IMAGES}: cannot read {path}: OpenCV could not decode it; replace or remove it")
        images.append(image)
    return images


def image_input(inputs: list[ov.Output]) -> ov.Output:
    """A model's one image input among its `inputs`: four dimensions, three channels (in its layout). Checked for
    the sweep's in-model preprocessing and for quantize's calibration alike, before either feeds an image."""
    candidates = [p for p in inputs if p.get_partial_shape().rank.get_length() == 4]
    if len(candidates) != 1:
        names = ", ".join(f"{p.get_any_name()}{p.get_partial_shape()}" for p in inputs)
        raise ModelError(f"{Input.IMAGES} needs a model with exactly one 4-dimensional image input; this one has "
                         f"{names}")
    port = candidates[0]
    layout = model_layout(port)
    channels = port.get_partial_shape()[ov.layout_helpers.channels_idx(layout)]
    if channels.is_static and channels.get_length() != 3:
        raise ModelError(f"{Input.IMAGES} works with 3-channel image inputs; {port.get_any_name()} has {channels} "
                         f"channels in its layout {layout.to_string()} (give another with {Input.LAYOUT})")
    return port


def add_image_preprocessing(model: ov.Model) -> ov.Model:
    """Let the image input take 8-bit NHWC BGR, converted inside the model to what it was trained on."""
    port = image_input(model.inputs)
    layout = model_layout(port)
    ppp = PrePostProcessor(model)
    step = ppp.input(port.get_any_name())
    step.tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_color_format(ColorFormat.BGR)
    step.preprocess().convert_element_type(port.get_element_type()).convert_color(ColorFormat.RGB)
    step.model().set_layout(layout)
    return ppp.build()


def model_layout(port: ov.Output) -> ov.Layout:
    """The image input's own layout: as set (--layout, or the IR's), else NCHW."""
    layout = ov.layout_helpers.get_layout(port)
    return layout if not layout.empty else ov.Layout("NCHW")


def as_model_input(images: list[np.ndarray], port: ov.Output) -> np.ndarray:
    """Images as the model's own (static) image input takes them: the host's resize, then on the host the steps
    add_image_preprocessing puts inside the model (RGB order, the input's element type and layout). Calibrating a
    model without those steps on these arrays calibrates it on exactly what the sweep feeds it."""
    return ImageConverter(port)(images)


class ImageConverter:
    """as_model_input for one port, its layout and shape read once: a pipeline trial converts thousands of crops a
    second on the harness's critical path, where reading the port's layout each time cost as much as the resize."""

    def __init__(self, port: ov.Output) -> None:
        layout, shape = model_layout(port), list(port.get_shape())
        helpers = ov.layout_helpers
        axes = [helpers.batch_idx(layout), helpers.height_idx(layout), helpers.width_idx(layout),
                helpers.channels_idx(layout)]
        self.size = (shape[axes[2]], shape[axes[1]])  # width, height: OpenCV's order
        position = {axis % 4: nhwc_axis for nhwc_axis, axis in enumerate(axes)}
        self.order = [position[i] for i in range(4)]
        self.dtype = port.get_element_type().to_dtype()

    def __call__(self, images: list[np.ndarray]) -> np.ndarray:
        nhwc = np.stack([cv2.resize(image, self.size) for image in images])[..., ::-1]
        return np.ascontiguousarray(nhwc.transpose(self.order), dtype=self.dtype)  # one copy, C order


@dataclass
class InputData:
    """Data for the requests of one compiled model: generated, or batches of real images."""

    images: list[np.ndarray] | None = None

    def fill(self, request: ov.InferRequest, index: int, seed: int = 0) -> None:
        """Write request `index`'s own data into its tensors, before any clock starts (generated with `seed`)."""
        fill_inputs(request, seed)
        if self.images is not None:
            name, batch = self._image_batch(request, index)
            request.get_tensor(name).data[...] = batch

    def sets(self, request: ov.InferRequest, count: int) -> list[dict]:
        """`count` host-side input sets, for copying fresh data in before every start."""
        sets = input_sets(request, count)
        if self.images is not None:
            for i, inputs in enumerate(sets):
                name, batch = self._image_batch(request, i)
                inputs.pop(next(p for p in inputs if p.get_any_name() == name))
                inputs[name] = batch
        return sets

    def _image_batch(self, request: ov.InferRequest, index: int) -> tuple[str, np.ndarray]:
        """The `index`-th batch of images, resized to the input's height and width, cycling through them."""
        assert self.images is not None
        port = next(p for p in request.model_inputs if len(p.get_shape()) == 4)
        batch, height, width, _ = port.get_shape()  # NHWC after add_image_preprocessing
        picks = [self.images[(index * batch + j) % len(self.images)] for j in range(batch)]
        return port.get_any_name(), np.stack([cv2.resize(image, (width, height)) for image in picks])

    def count(self, default: int) -> int:
        """How many inputs an accuracy comparison takes: every image given, else `default` generated ones."""
        return len(self.images) if self.images is not None else default
