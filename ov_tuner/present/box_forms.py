"""Deploy forms for the box a deployment runs in: a Kubernetes container's CPU request and limit, and a Ray actor
holding as many CPUs, each the box the answer was measured in. OpenVINO does not read either: it sizes its threads
from INFERENCE_NUM_THREADS (in the properties every form sets) or else from the host, so the limit the answer was
measured under goes beside the properties."""

from __future__ import annotations

from dataclasses import dataclass

from ov_tuner.present.formats import DeploySnippets
from ov_tuner.present.words.box import box_text
from ov_tuner.schema import Box, PointResult


def box_cpus(box: Box | None) -> float | None:
    """The CPUs the answer was measured on: its quota, or its cpuset where there was none (None: not recorded)."""
    return None if box is None else box.cpus


def _quantity(cpus: float) -> str:
    """A Kubernetes CPU quantity: '2', or '1500m'."""
    return str(int(cpus)) if cpus == int(cpus) else f"{round(cpus * 1000)}m"


@dataclass(frozen=True)
class Remeasure:
    """How a workload's user measures again, in its own words: `under_limit`, under the limit they will set (a
    sweep's --cpus; an LLM's command in a container); `unrecorded`, where the file predates the box it was
    measured in."""

    under_limit: str
    unrecorded: str


def kubernetes_resources(box: Box | None, remeasure: Remeasure) -> str:
    """The `resources:` of the container that runs the model: request and limit the CPUs the answer was measured
    on (equal, for the Guaranteed QoS class; whole CPUs also get exclusive cores under the static CPU manager),
    and its memory limit where one bound the run; `remeasure` says how to measure under another limit."""
    cpus = box_cpus(box)
    if cpus is None:
        return f"# the results file does not record the CPUs the answer was measured on {remeasure.unrecorded}"
    memory = (f"    memory: \"{box.memory_limit_bytes // 2**20}Mi\"\n" if box is not None and box.memory_limit_bytes
              else "")
    limit = f"    cpu: \"{_quantity(cpus)}\"\n"
    return (f"# measured in: {box_text(box)}\n"
            f"# a smaller CPU limit throttles these threads: {remeasure.under_limit}\n"
            f"resources:\n  requests:\n{limit}{memory}  limits:\n{limit}{memory}").rstrip("\n")


def ray_actor(point: PointResult, snippets: DeploySnippets, box: Box | None) -> str:
    """A Ray actor that holds the CPUs the answer was measured on (num_cpus: Ray schedules by it, it does not
    enforce it) and serves the compiled model with the measured requests in flight, one per concurrent call. It
    infers once before serving: without that, its first two concurrent calls hung for good on a busy host here, in
    both of two tries (one thread in pybind11's once-only numpy setup waiting for the GIL, the other holding the GIL
    and waiting for that setup, as gdb showed), which had failed a CI run on its 300 s timeout."""
    cpus = box_cpus(box) or 1
    body = snippets.python.split("core = ov.Core()\n", 1)[1].replace("compiled = ", "self.compiled = ")
    body = body.split("queue = ", 1)[0]
    init = "".join(f"        {line}\n" if line else "\n" for line in ["core = ov.Core()", *body.rstrip().split("\n")])
    return (
        "import queue\n\nimport openvino as ov\nimport ray\n\n\n"
        f"@ray.remote(num_cpus={cpus:g}, max_concurrency={point.nireq})\n"
        "class Model:\n"
        f"    \"\"\"{point.config.label()}, as ov-tuner measured it; each concurrent call runs one of its "
        f"{point.nireq} requests.\"\"\"\n\n"
        "    def __init__(self) -> None:\n"
        f"{init}"
        "        self.requests: queue.Queue = queue.Queue()\n"
        f"        for _ in range({point.nireq}):\n"
        "            self.requests.put(self.compiled.create_infer_request())\n"
        "        # One inference before any concurrent call: the first calls from two threads at once can deadlock\n"
        "        # in OpenVINO's Python bindings (pybind11's one-time numpy setup); and a first inference is slow.\n"
        "        first = self.requests.get()\n"
        "        first.infer()\n"
        "        self.requests.put(first)\n\n"
        "    def infer(self, inputs):\n"
        "        request = self.requests.get()\n"
        "        try:\n"
        "            return [output.copy() for output in request.infer(inputs).values()]\n"
        "        finally:\n"
        "            self.requests.put(request)\n"
    )
