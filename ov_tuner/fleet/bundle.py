"""The model (and the images, if any) as bytes, so that target hosts need no shared file system: the driver
packs them once, Ray's object store carries them, each node unpacks them into a folder of its own."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.devices.modelfile import model_files
from ov_tuner.model.inputs import IMAGE_SUFFIXES


@dataclass(frozen=True)
class Bundle:
    """Files by their path relative to the model's folder (`model` names the one to open), and the images."""

    model: str
    files: dict[str, bytes]
    images: dict[str, bytes] | None


def pack(model: Path, images: Path | None) -> Bundle:
    """Read the model's files (an IR's .xml and .bin, a SavedModel folder's every file) and the image files."""
    if model.is_dir():
        files = {str(f.relative_to(model.parent)): f.read_bytes() for f in sorted(model.rglob("*")) if f.is_file()}
    else:
        files = {f.name: f.read_bytes() for f in model_files(model)}
    pictures = None
    if images is not None:
        pictures = {f.name: f.read_bytes() for f in sorted(images.iterdir()) if f.suffix.lower() in IMAGE_SUFFIXES}
    return Bundle(model.name, files, pictures)


def unpack(bundle: Bundle, folder: Path) -> tuple[Path, Path | None]:
    """Write the bundle under `folder`; the model's path and the images' folder there."""
    for name, data in bundle.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    if bundle.images is None:
        return folder / bundle.model, None
    images = folder / "images"
    images.mkdir()
    for name, data in bundle.images.items():
        (images / name).write_bytes(data)
    return folder / bundle.model, images
