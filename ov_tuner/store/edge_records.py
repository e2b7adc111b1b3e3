"""The results file's records besides points and rounds: cold starts, profiles, output accuracy, camera capacity
trials and soaks."""

from __future__ import annotations

import json
from dataclasses import asdict

from ov_tuner.schema import (
    Accuracy,
    Arrival,
    CameraTarget,
    Capacity,
    ColdStart,
    ColdStartSample,
    CompileKey,
    HarnessCarried,
    LayerTime,
    LoadTrial,
    OutputAccuracy,
    PointConfig,
    Precision,
    Profile,
    Soak,
    SoakWindow,
    Window,
)
from ov_tuner.store.connection import Connection
from ov_tuner.store.rows import array, blob, config_from_row, config_values, now


class MoreRecords(Connection):
    """Writes and reads of the records a sweep's other jobs add to its file."""

    def begin_coldstart(self, key: CompileKey) -> int:
        """A cold start's row, before its first sample: each is added as it is taken (add_coldstart_sample)."""
        with self._writing():
            cursor = self._db.execute(
                "INSERT INTO coldstarts (device, precision, batch, streams, samples, created_at) VALUES (?,?,?,?,?,?)",
                (key.device, key.precision.value, key.batch, key.streams, "[]", now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_coldstart_sample(self, coldstart_id: int, sample: ColdStartSample) -> None:
        with self._writing():
            (stored,) = self._db.execute("SELECT samples FROM coldstarts WHERE id = ?", (coldstart_id,)).fetchone()
            self._db.execute("UPDATE coldstarts SET samples = ? WHERE id = ?",
                             (json.dumps([*json.loads(stored), asdict(sample)]), coldstart_id))

    def coldstarts(self) -> list[ColdStart]:
        """Every cold start with a sample taken (one stopped before its first holds nothing)."""
        return [ColdStart(CompileKey(r["device"], Precision(r["precision"]), r["batch"], r["streams"]),
                          tuple(ColdStartSample(**s) for s in json.loads(r["samples"])))
                for r in self._db.execute("SELECT * FROM coldstarts WHERE samples != '[]' ORDER BY id")]

    def add_profile(self, profile: Profile) -> None:
        c = profile.config
        with self._writing():
            self._db.execute(
                "INSERT INTO profiles (device, precision, batch, streams, nireq, inferences, mean_request_ms, layers, "
                "created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (c.device, c.precision.value, c.batch, c.streams, c.nireq, profile.inferences, profile.mean_request_ms,
                 json.dumps([asdict(layer) for layer in profile.layers]), now()),
            )

    def profiles(self) -> list[Profile]:
        return [Profile(PointConfig(r["device"], Precision(r["precision"]), r["batch"], r["streams"], r["nireq"]),
                        r["inferences"], r["mean_request_ms"],
                        tuple(LayerTime(**layer) for layer in json.loads(r["layers"])))
                for r in self._db.execute("SELECT * FROM profiles ORDER BY id")]

    # -- output accuracy ------------------------------------------------------------------------------------

    def reference(self, batch: int, inputs: int) -> tuple[bool, bytes] | None:
        """The stored FP32 reference outputs for a batch and input count: (deterministic, compressed arrays)."""
        row = self._db.execute("SELECT deterministic, outputs FROM accuracy_references WHERE batch = ? AND inputs = ?",
                               (batch, inputs)).fetchone()
        return (bool(row[0]), bytes(row[1])) if row else None

    def add_reference(self, batch: int, inputs: int, deterministic: bool, outputs: bytes) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO accuracy_references VALUES (?,?,?,?,?)",
                             (batch, inputs, int(deterministic), outputs, now()))

    def add_accuracy(self, accuracy: Accuracy) -> None:
        with self._writing():
            self._db.execute(
                "INSERT OR REPLACE INTO accuracy (device, precision, batch, inputs, outputs, error, created_at) "
                "VALUES (?,?,?,?,?,?,?)",
                (accuracy.device, accuracy.precision.value, accuracy.batch, accuracy.inputs,
                 json.dumps([asdict(o) for o in accuracy.outputs]), accuracy.error, now()))

    def accuracies(self) -> list[Accuracy]:
        return [Accuracy(r["device"], Precision(r["precision"]), r["batch"], r["inputs"],
                         tuple(OutputAccuracy(**o) for o in json.loads(r["outputs"])), r["error"])
                for r in self._db.execute("SELECT * FROM accuracy ORDER BY device, precision, batch")]

    # -- edge: capacity trials and soaks --------------------------------------------------------------------

    def begin_capacity(self, config: PointConfig, target: CameraTarget, searched: bool) -> int:
        with self._writing():
            cursor = self._db.execute(
                "INSERT INTO capacities (device, precision, batch, streams, nireq, mode, input_mode, settings, fps, "
                "max_latency_ms, percentile, arrival, searched, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (*config_values(config), target.fps, target.max_latency_ms, target.percentile,
                 target.arrival.value, int(searched), now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_trial(self, capacity_id: int, trial: LoadTrial) -> None:
        with self._writing():
            position = self._db.execute("SELECT COUNT(*) FROM load_trials WHERE capacity_id = ?",
                                        (capacity_id,)).fetchone()[0]
            self._db.execute("INSERT INTO load_trials VALUES (?,?,?,?,?,?,?,?,?,?)",
                             (capacity_id, position, trial.cameras, trial.seconds, trial.offered, trial.dropped,
                              blob(trial.latencies_ms), blob(trial.service_ms), trial.foreign_cpu, trial.steal))

    def record_capacity_harness(self, capacity_id: int, carried: HarnessCarried) -> None:
        with self._writing():
            self._db.execute("UPDATE capacities SET harness_fps = ?, harness_reached = ? WHERE id = ?",
                             (carried.frames_per_s, int(carried.reached), capacity_id))

    def capacities(self) -> list[Capacity]:
        """Every capacity run, oldest first, with its trials in the order they ran."""
        result = []
        for r in self._db.execute("SELECT * FROM capacities ORDER BY id").fetchall():
            trials = tuple(
                LoadTrial(cameras=t["cameras"], seconds=t["seconds"], offered=t["offered"], dropped=t["dropped"],
                          latencies_ms=array(t["latencies_ms"]), service_ms=array(t["service_ms"]),
                          foreign_cpu=t["foreign_cpu"], steal=t["steal"])
                for t in self._db.execute("SELECT * FROM load_trials WHERE capacity_id = ? ORDER BY position",
                                          (r["id"],)))
            target = CameraTarget(r["fps"], r["max_latency_ms"], r["percentile"], Arrival(r["arrival"]))
            harness = (None if r["harness_fps"] is None
                       else HarnessCarried(r["harness_fps"], bool(r["harness_reached"])))
            result.append(Capacity(config_from_row(r), target, bool(r["searched"]), trials, harness))
        return result

    def begin_soak(self, config: PointConfig, planned_s: float, window_s: float) -> int:
        with self._writing():
            cursor = self._db.execute(
                "INSERT INTO soaks (device, precision, batch, streams, nireq, mode, input_mode, settings, planned_s, "
                "window_s, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (*config_values(config), planned_s, window_s, now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_soak_window(self, soak_id: int, w: SoakWindow) -> None:
        with self._writing():
            position = self._db.execute("SELECT COUNT(*) FROM soak_windows WHERE soak_id = ?",
                                        (soak_id,)).fetchone()[0]
            self._db.execute("INSERT INTO soak_windows VALUES (?,?,?,?,?)",
                             (soak_id, position, w.start_s, json.dumps(asdict(w.window)), blob(w.latencies_ms)))

    def soaks(self) -> list[Soak]:
        """Every soak, oldest first, with the windows it stored (all of them, or those before a Ctrl-C)."""
        return [Soak(config_from_row(r), r["planned_s"], r["window_s"], tuple(
                    SoakWindow(w["start_s"], Window(**json.loads(w["window"])), array(w["latencies_ms"]))
                    for w in self._db.execute("SELECT * FROM soak_windows WHERE soak_id = ? ORDER BY position",
                                              (r["id"],))))
                for r in self._db.execute("SELECT * FROM soaks ORDER BY id").fetchall()]
