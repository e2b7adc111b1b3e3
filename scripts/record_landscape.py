"""Record this host's landscape for the search simulator: a full grid of the default model, twice.

Each grid is `ov-tuner sweep --search grid --seconds 2` (every streams x requests point, 2 s each, in
0.4 s windows, with the LATENCY and THROUGHPUT hint baselines and no confirmation round), into a fresh
results file; then every point's window FPS goes into one JSON file in the format of
../shared/data/landscape-16core-mobilenet_v2.json, which ov_tuner.workloads.sweep.simulate.load_landscapes reads.
The baselines keep the streams and requests OpenVINO chose, so the THROUGHPUT hint anchors the simulated
search as it does the real one.

    .venv/bin/python scripts/record_landscape.py tests/data/landscape-2core-epyc-mobilenet_v2.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import date
from pathlib import Path

import openvino as ov

from ov_tuner.devices.environment import cpu_model
from ov_tuner.devices.runtime import Runtime
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import Precision, Search, StopRule, SweepSpec
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", default="mobilenet_v2", help="a zoo model")
    parser.add_argument("--grids", type=int, default=2)
    args = parser.parse_args()
    cpu = Runtime().device_info("CPU")
    flags = " ".join(sorted({f for line in Path("/proc/cpuinfo").read_text().splitlines()
                             if line.startswith("flags") for f in line.split()[2:]
                             if f.startswith(("avx512", "amx", "avx2", "avx_vnni"))}))
    grids = []
    with tempfile.TemporaryDirectory() as tmp:
        model = build_zoo_model(args.model, Path(tmp))[0]
        for run in range(1, args.grids + 1):
            out = Path(tmp) / f"grid{run}.db"
            run_sweep(SweepSpec(model=model, out=out, precisions=(Precision.FP32, Precision.FP16),
                                stop=StopRule(window_s=0.4, fixed_s=2.0), search=Search.GRID, confirm=None))
            points = []
            for p in load_results(out).points:
                if p.measurement is None:
                    continue
                m = p.measurement
                points.append({"precision": p.config.precision.value, "mode": p.config.mode.value,
                               "streams": p.streams, "nireq": p.nireq, "fps": round(m.fps, 1),
                               "fps_cv": round(m.fps_cv or 0.0, 4), "lat_median_ms": round(m.latency.median, 3),
                               "lat_p90_ms": round(m.latency.p90, 3),
                               "window_fps": [round(w.fps, 1) for w in m.windows]})
            grids.append({"run": run, "points": points})
            print(f"grid {run}: {len(points)} points")
    assert cpu.streams_range is not None
    what = (f"Full streams x requests grids of {args.model} (ov-tuner zoo, batch 1), measured {args.grids} times with "
            f"`ov-tuner sweep --search grid --seconds 2` on {cpu_model()}, OpenVINO {ov.get_version().split('-')[0]}, "
            f"{date.today()}. Baselines record the streams x requests OpenVINO chose.")
    args.out.write_text(json.dumps({"what": what, "host": {
        "cpu_model": cpu_model(), "cores": cpu.streams_range[1], "ov_version": ov.get_version(), "flags": flags,
        "max_streams": cpu.streams_range[1]}, "grids": grids}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
