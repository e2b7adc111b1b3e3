"""The results file's pipeline records: the pipeline tuned (one per file), each stage's solo points, and every trial
of the search and of the head-to-head rounds, each stored as soon as it ends."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from ov_tuner.errors import IncompatibleResultsError, Input
from ov_tuner.schema import Arrival, CameraTarget, LoadTrial, Precision
from ov_tuner.store.connection import Connection
from ov_tuner.store.rows import array, blob, now
from ov_tuner.store.tables import OwnTables
from ov_tuner.workloads.pipeline.schema import (
    DetectionCount,
    HarnessCeiling,
    Origin,
    Pipeline,
    PipelineStage,
    PipelineTrial,
    SoloPoint,
    Split,
    StageRan,
    StageSetting,
    StageTime,
    VideoSource,
)

# The pipeline's tables in its results files, and what brings a file's up from an older version of them (numbered as
# the results schema's were while every workload's tables were the store's).
PIPELINE_TABLES = OwnTables("pipeline", 21, """
CREATE TABLE IF NOT EXISTS pipelines (
    id INTEGER PRIMARY KEY, spec TEXT NOT NULL, starts TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL,
    harness TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS pipeline_solo (
    id INTEGER PRIMARY KEY, stage INTEGER NOT NULL, streams INTEGER NOT NULL, nireq INTEGER NOT NULL,
    threads INTEGER NOT NULL, fps REAL NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pipeline_trials (
    id INTEGER PRIMARY KEY, round INTEGER NOT NULL, split TEXT NOT NULL, cameras INTEGER NOT NULL,
    seconds REAL NOT NULL, offered INTEGER NOT NULL, dropped INTEGER NOT NULL, latencies_ms BLOB NOT NULL,
    stages TEXT NOT NULL, ran TEXT NOT NULL, foreign_cpu REAL, steal REAL, created_at TEXT NOT NULL, fps REAL
);
""", upgrades={
    6: ("ALTER TABLE pipeline_trials ADD COLUMN fps REAL",),  # v7: a pass's trial above the target frame rate
    11: ("ALTER TABLE pipelines ADD COLUMN harness TEXT NOT NULL DEFAULT '{}'",),  # v12: the load harness's ceiling
})


class PipelineRecords(Connection):
    """Writes and reads of a pipeline's records."""

    OWN_TABLES = (PIPELINE_TABLES,)

    def claim_pipeline(self, pipeline: Pipeline) -> None:
        """Record `pipeline`, or refuse when the file holds another (other stages, models, video or target): trials
        of two pipelines would mix."""
        stored = self.pipeline()
        if stored is None:
            with self._writing():
                self._db.execute("INSERT INTO pipelines (spec, created_at) VALUES (?, ?)",
                                 (json.dumps(asdict(pipeline)), now()))
        elif stored != pipeline:
            raise IncompatibleResultsError(f"{self.path} holds the trials of another pipeline (its stages, models, "
                                           f"video or camera target differ); tune into a new {Input.RESULTS} file")

    def pipeline(self) -> Pipeline | None:
        row = self._db.execute("SELECT spec FROM pipelines ORDER BY id LIMIT 1").fetchone()
        return None if row is None else pipeline_of(json.loads(row[0]))

    def record_starts(self, starts: Sequence[tuple[Split, Origin]]) -> None:
        """The search's starting points, kept so that a resumed search and `show` start from the same ones."""
        with self._writing():
            self._db.execute("UPDATE pipelines SET starts = ?",
                             (json.dumps([[asdict(split), origin.value] for split, origin in starts]),))

    def starts(self) -> list[tuple[Split, Origin]]:
        row = self._db.execute("SELECT starts FROM pipelines ORDER BY id LIMIT 1").fetchone()
        return [] if row is None else [(split_of(s), Origin(o)) for s, o in json.loads(row[0])]

    def record_harness(self, ceiling: HarnessCeiling) -> None:
        """The load harness's ceiling at the answer's split, measured once after the rounds."""
        with self._writing():
            self._db.execute("UPDATE pipelines SET harness = ?", (json.dumps(asdict(ceiling)),))

    def harness(self) -> HarnessCeiling | None:
        row = self._db.execute("SELECT harness FROM pipelines ORDER BY id LIMIT 1").fetchone()
        data = {} if row is None else json.loads(row[0])
        if not data:
            return None
        return HarnessCeiling(**{**data, "split": split_of(data["split"]), "runs_per_frame":
                                 tuple(data["runs_per_frame"]), "solo_fps": tuple(data["solo_fps"])})

    def add_solo(self, point: SoloPoint) -> None:
        s = point.setting
        with self._writing():
            self._db.execute("INSERT INTO pipeline_solo (stage, streams, nireq, threads, fps, created_at) "
                             "VALUES (?,?,?,?,?,?)", (point.stage, s.streams, s.nireq, s.threads, point.fps, now()))

    def solo_points(self) -> list[SoloPoint]:
        return [SoloPoint(r["stage"], StageSetting(r["streams"], r["nireq"], r["threads"]), r["fps"])
                for r in self._db.execute("SELECT * FROM pipeline_solo ORDER BY id")]

    def add_pipeline_trial(self, trial: PipelineTrial) -> None:
        load = trial.load
        with self._writing():
            self._db.execute(
                "INSERT INTO pipeline_trials (round, split, cameras, seconds, offered, dropped, latencies_ms, stages, "
                "ran, foreign_cpu, steal, created_at, fps) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (trial.pass_number, json.dumps(asdict(trial.split)), load.cameras, load.seconds, load.offered,
                 load.dropped, blob(load.latencies_ms), json.dumps([asdict(s) for s in trial.stages]),
                 json.dumps([asdict(r) for r in trial.ran]), load.foreign_cpu, load.steal, now(), trial.fps))

    def pipeline_trials(self) -> list[PipelineTrial]:
        return [PipelineTrial(
            split_of(json.loads(r["split"])),
            LoadTrial(cameras=r["cameras"], seconds=r["seconds"], offered=r["offered"], dropped=r["dropped"],
                      latencies_ms=array(r["latencies_ms"]), service_ms=np.array([]), foreign_cpu=r["foreign_cpu"],
                      steal=r["steal"]),
            tuple(StageTime(**s) for s in json.loads(r["stages"])),
            tuple(StageRan(tuple(tuple(p) for p in x["properties"]), x["nireq"], x["streams"], x["precision"],
                           ir=x.get("ir", ""), ir_precision=x.get("ir_precision", ""), quantize=x.get("quantize", ""))
                  for x in json.loads(r["ran"])),
            r["round"], r["fps"]) for r in self._db.execute("SELECT * FROM pipeline_trials ORDER BY id")]


def split_of(data: dict[str, Any]) -> Split:
    return Split(tuple(StageSetting(**s) for s in data["stages"]), data["decode_threads"])


def pipeline_of(data: dict[str, Any]) -> Pipeline:
    def stage(s: dict[str, Any]) -> PipelineStage:
        detection = s["per_detection"]
        return PipelineStage(**{**s, "precision": None if s["precision"] is None else Precision(s["precision"]),
                                "per_detection": None if detection is None else DetectionCount(**detection),
                                "shape": tuple((name, tuple(dims)) for name, dims in s.get("shape", ()))})

    target = data["target"]
    return Pipeline(tuple(stage(s) for s in data["stages"]), VideoSource(**data["video"]),
                    CameraTarget(**{**target, "arrival": Arrival(target["arrival"])}))
