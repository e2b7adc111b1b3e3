"""Open-loop load on a pipeline: cameras whose frames are decoded, then run through a chain of models sharing one
device, each frame's latency counted from its arrival to its last model's result.

Why the whole chain at once: tuned alone, each model takes the whole device; run side by side they take it from
each other and from the decoder. Only a trial of the chain under camera load measures what a split of the device
gives the cameras.

How a trial runs (ov_tuner.measure.openloop, for the chain):
- Each camera has its own feed (ov_tuner.workloads.pipeline.video) and its frames arrive on Arrivals' schedule:
  camera c's at c / rate + k / fps (Poisson arrivals go to the cameras in turn). A lead-in of the same load runs
  first and is not counted; a frame counts when it arrives at or after the start.
- A camera keeps at most max(2, ceil(budget * fps) + 1) frames in the pipeline; a newer one is dropped, as an edge
  pipeline drops a stale frame: one that waits behind that many would be late anyway, and every queue stays bounded.
- `decode_threads` threads take the admitted frames in arrival order, read each camera's next frame (its real
  decode) and cut and resize it for the first stage that runs on it (ov_tuner.model.inputs.ImageConverter).
- Stage i runs on a camera's k-th frame where `runs_on(k)`: `per_frame` times, or once for each value of the previous
  stage's `per_detection.output` on that frame above its threshold (at most `most`; none where the previous stage did
  not run). Its K runs are K requests on K crops: the frame cut into a grid of K tiles as square as possible. The
  tiles are not the detector's boxes: the cost of a request does not depend on where its crop came from. A later
  stage's crops are cut where the frame's last request of the stage before ends, outside every stage's times.
- Each stage has `nireq` infer requests, each driven by a worker thread of its own: it takes the next crop, runs it
  (`infer`, the GIL released while the device works), counts, reads the detections the next stage needs and hands
  the frame on. No Python runs on OpenVINO's threads: with a completion callback, each stream's thread waited for
  the GIL after every request (on 16 cores every stage was 16-27% busy while the cameras were turned away), and the
  stream sat idle meanwhile; here a stream takes the next request in flight while its worker waits for the GIL.
- A frame finishes when its last stage's last request completes, or after decoding where no stage runs on it.

Every started request completes and every thread is joined before the trial returns, an exception or Ctrl-C
included (a worker's `infer` returns only when its request has).
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import openvino as ov

from ov_tuner.measure import host
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.model.inputs import ImageConverter, image_input
from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.workloads.pipeline.frames import Frame, Job, Tally, arrival_schedule, check_counted_output, tiles
from ov_tuner.workloads.pipeline.schema import DECODE, DetectionCount, PipelineStage, StageTime, VideoSource
from ov_tuner.workloads.pipeline.video import open_feeds


@dataclass(frozen=True)
class StageRunner:
    """One stage of the chain, compiled, with `nireq` requests (0: the compiled model's optimal number)."""

    stage: PipelineStage
    compiled: ov.CompiledModel
    nireq: int


def run_pipeline_trial(runners: Sequence[StageRunner], video: VideoSource, decode_threads: int, arrivals: Arrivals,
                       target: CameraTarget, lead_in_s: float = 1.0) -> tuple[LoadTrial, tuple[StageTime, ...]]:
    """One open-loop trial of the chain `runners` at `arrivals`, after `lead_in_s` seconds of the same load (see
    the module's docstring): the load (service_ms empty: a frame's latency is several requests') and the stage
    times, the decoder's first."""
    if runners and runners[0].stage.per_detection:
        raise ValueError(f"stage {runners[0].stage.name}: the first stage has no previous stage to count detections in")
    if decode_threads < 1:
        raise ValueError("a trial needs at least one decode thread")
    trial = _Trial(runners, video, arrivals.cameras, decode_threads, _most_in_flight(target, arrivals.fps))
    # OpenCV's resize would start its own pool of threads beside the decode threads; at one, each resize runs on the
    # thread that calls it, and the decoder keeps the share of the CPUs the split gives it. The setting is the
    # process's: restored after.
    previous = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        figures = trial.run(arrivals, lead_in_s)
    finally:
        cv2.setNumThreads(previous)
    del trial  # its requests go now, while the compiled models live
    return figures


def _requests(runner: StageRunner) -> int:
    """The stage's requests: its own number, or the compiled model's optimal one."""
    return runner.nireq or int(runner.compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))


def _most_in_flight(target: CameraTarget, fps: float) -> int:
    """How many of a camera's frames may be in the pipeline: those arrived within the latency budget, and one more."""
    return max(2, math.ceil(target.max_latency_ms / 1000 * fps) + 1)


class _Trial:
    """The threads and queues of one trial, and what they count."""

    def __init__(self, runners: Sequence[StageRunner], video: VideoSource, cameras: int, decode_threads: int,
                 most_in_flight: int) -> None:
        self.runners = runners
        self.ports = [image_input(r.compiled.inputs) for r in runners]
        self.converters = [ImageConverter(port) for port in self.ports]
        self.counts = [_detection_count(runners, i) for i in range(len(runners))]
        self.feeds = open_feeds(video, cameras)
        self.most_in_flight = most_in_flight
        self.lock = threading.Lock()
        self.settled = threading.Condition(self.lock)
        self.in_flight = [0] * cameras
        self.outstanding = 0
        self.latencies_ms: list[float] = []
        self.decode = Tally()
        self.tallies = [Tally() for _ in runners]
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.decode_jobs: queue.SimpleQueue[Frame | None] = queue.SimpleQueue()
        self.stage_jobs: list[queue.SimpleQueue[Job | None]] = [queue.SimpleQueue() for _ in runners]
        self.requests = [[r.compiled.create_infer_request() for _ in range(_requests(r))] for r in runners]
        self.decoders = [threading.Thread(target=self.decoder, name=f"decode-{i}") for i in range(decode_threads)]
        self.workers = [threading.Thread(target=self.worker, args=(i, request), name=f"stage-{r.stage.name}-{k}")
                        for i, r in enumerate(runners) for k, request in enumerate(self.requests[i])]

    def run(self, arrivals: Arrivals, lead_in_s: float) -> tuple[LoadTrial, tuple[StageTime, ...]]:
        """Offer the frames on schedule, wait until every admitted one finished, stop every thread, and make the
        trial's figures (only then: a request's wait is added after it starts, and its frame may finish first)."""
        offsets, cameras = arrival_schedule(arrivals)
        if lead_in_s:
            lead, lead_cameras = arrival_schedule(Arrivals(arrivals.cameras, arrivals.fps, lead_in_s, arrivals.poisson,
                                                    arrivals.seed + 1))
            offsets, cameras = np.concatenate([lead - lead_in_s, offsets]), np.concatenate([lead_cameras, cameras])
        start = time.perf_counter_ns() + int(lead_in_s * 1e9)
        schedule = start + (offsets * 1e9).astype(np.int64)
        try:
            dropped, load = self.offer(schedule, cameras, start)
            span_s = (time.perf_counter_ns() - start) / 1e9  # the counted period, up to the last frame's result
        finally:
            self.shutdown()
        trial = LoadTrial(
            cameras=arrivals.cameras, seconds=arrivals.seconds, offered=int(np.sum(schedule >= start)),
            dropped=dropped, latencies_ms=np.array(self.latencies_ms, dtype=np.float64),
            service_ms=np.array([], dtype=np.float64),
            foreign_cpu=load.foreign_cpu if load else None, steal=load.steal if load else None)
        stages = (self.decode.time(DECODE, len(self.decoders), span_s),
                  *(self.tallies[i].time(r.stage.name, len(self.requests[i]), span_s)
                    for i, r in enumerate(self.runners)))
        return trial, stages

    def offer(self, schedule: np.ndarray, cameras: np.ndarray, start: int) -> tuple[int, host.HostLoad | None]:
        """Admit or drop each frame at its arrival and wait for the admitted ones: the counted frames dropped, and
        the host's load over the counted period."""
        for thread in self.decoders + self.workers:
            thread.start()
        frames = [0] * len(self.feeds)
        dropped = 0
        host_start: host.HostSample | None = None
        for arrived, camera in zip(schedule.tolist(), cameras.tolist(), strict=True):
            time.sleep(max(0, arrived - time.perf_counter_ns()) / 1e9)
            if self.error is not None:
                raise self.error
            if host_start is None and arrived >= start:
                host_start = host.sample()
            frame = Frame(camera, frames[camera], arrived, arrived >= start)
            frames[camera] += 1
            with self.lock:
                admitted = self.in_flight[camera] < self.most_in_flight
                if admitted:
                    self.in_flight[camera] += 1
                    self.outstanding += 1
            if admitted:
                self.decode_jobs.put(frame)
            else:
                dropped += frame.counted
        with self.settled:
            while self.outstanding and self.error is None:
                self.settled.wait(0.1)
        if self.error is not None:
            raise self.error
        return dropped, host.load_between(host_start, host.sample()) if host_start else None

    def decoder(self) -> None:
        """Decode a frame and cut it for the first stage that runs on it."""
        for frame in iter(self.decode_jobs.get, None):
            if self.stop.is_set():
                continue
            try:
                started = time.perf_counter_ns()
                frame.image = self.feeds[frame.camera].read()
                self.hand_on(frame, 0, 0)
                if frame.counted:
                    with self.lock:
                        self.decode.runs += 1
                        self.decode.busy_ms += (time.perf_counter_ns() - started) / 1e6
                        self.decode.wait_ms += (started - frame.arrived_ns) / 1e6
            except BaseException as error:
                self.fail(error)

    def worker(self, stage: int, request: ov.InferRequest) -> None:
        """Run a stage's crops on one request, each as it comes: its wait is from the crop's being ready to its
        start; then count it and hand the frame on once its last request at this stage is done."""
        port, tally, count = self.ports[stage], self.tallies[stage], self.counts[stage]
        for job in iter(self.stage_jobs[stage].get, None):
            if self.stop.is_set():
                continue
            try:
                frame = job.frame
                started = time.perf_counter_ns()
                request.infer({port: job.crop})
                found = int(np.count_nonzero(request.get_tensor(count.output).data > count.threshold)) if count else 0
                with self.lock:
                    if frame.counted:
                        tally.runs += 1
                        tally.busy_ms += request.latency
                        tally.wait_ms += (started - job.ready_ns) / 1e6
                    frame.detections += found
                    frame.pending -= 1
                    last = frame.pending == 0
                if last:
                    self.hand_on(frame, stage + 1, frame.detections)
            except BaseException as error:
                self.fail(error)

    def runs(self, stage: int, frame: Frame, detections: int) -> int:
        """How many requests `stage` makes on `frame`, given the previous stage's `detections` on it."""
        spec = self.runners[stage].stage
        if not spec.runs_on(frame.index):
            return 0
        return min(detections, spec.per_detection.most) if spec.per_detection else spec.per_frame

    def hand_on(self, frame: Frame, stage: int, detections: int) -> None:
        """Give `frame` to `stage`, or the first later stage that runs on it, a crop a request; finish it where none
        does."""
        while stage < len(self.runners):
            runs = self.runs(stage, frame, detections)
            if runs:
                assert frame.image is not None
                crops = self.crops(stage, frame.image, runs)
                frame.pending, frame.detections = runs, 0
                ready = time.perf_counter_ns()
                for crop in crops:
                    self.stage_jobs[stage].put(Job(frame, crop, ready))
                return
            stage, detections = stage + 1, 0
        self.finish(frame)

    def crops(self, stage: int, image: np.ndarray, runs: int) -> list[np.ndarray]:
        return [self.converters[stage]([tile]) for tile in tiles(image, runs)]

    def finish(self, frame: Frame) -> None:
        finished = time.perf_counter_ns()
        frame.image = None
        with self.lock:
            if frame.counted:
                self.latencies_ms.append((finished - frame.arrived_ns) / 1e6)
            self.in_flight[frame.camera] -= 1
            self.outstanding -= 1
            if not self.outstanding:
                self.settled.notify_all()

    def fail(self, error: BaseException) -> None:
        """Keep a decoder's or worker's error for the trial to raise, and stop starting work."""
        with self.lock:
            self.error = self.error or error
            self.stop.set()
            self.settled.notify_all()

    def shutdown(self) -> None:
        """Stop every thread (a sentinel each; a worker ends after the request it runs), close the feeds."""
        self.stop.set()
        for _ in self.decoders:
            self.decode_jobs.put(None)
        for jobs, requests in zip(self.stage_jobs, self.requests, strict=True):
            for _ in requests:
                jobs.put(None)
        for thread in self.decoders + self.workers:
            if thread.ident is not None:
                thread.join()
        for feed in self.feeds:
            feed.close()


def _detection_count(runners: Sequence[StageRunner], stage: int) -> DetectionCount | None:
    """What the stage after `stage` counts in `stage`'s outputs, checked here rather than in a worker (a guard for a
    chain run alone: ov_tuner.workloads.pipeline.job checks it on the models read, before anything is measured)."""
    following = runners[stage + 1].stage if stage + 1 < len(runners) else None
    if following is not None and following.per_detection is not None:
        check_counted_output(following, runners[stage].stage, {n for o in runners[stage].compiled.outputs
                                                                for n in o.get_names()})
    return None if following is None else following.per_detection
