"""Results on disk: one SQLite file, one row per point, committed before the next point starts.

Raw per-request latencies are kept (float32 milliseconds), so a new statistic never needs a re-run.
The file records the environment it was measured in and refuses results from another one.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ov_tuner.errors import BadInputError, IncompatibleResultsError, ResultsWriteError
from ov_tuner.schema import (
    Accuracy,
    Arrival,
    CameraTarget,
    Capacity,
    ColdStart,
    ColdStartSample,
    CompileInfo,
    CompileKey,
    Confirmation,
    Contender,
    DeviceInfo,
    Ending,
    Environment,
    InputMode,
    LayerTime,
    LoadTrial,
    Measurement,
    Mode,
    OutputAccuracy,
    PointConfig,
    PointResult,
    Precision,
    Profile,
    RoundWindow,
    Settings,
    Soak,
    SoakWindow,
    Status,
    Window,
)
from ov_tuner.store.destinations import results_file
from ov_tuner.store.tables import SCHEMA, SCHEMA_VERSION, UPGRADES, table_names


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResultStore:
    """An open results file. Use as a context manager; every write is committed at once.

    `create=False` opens it for reading only: the file is never modified, not even upgraded; a file written
    by an older ov-tuner is upgraded in a copy in memory.
    """

    def __init__(self, path: Path, create: bool = True, flag: str = "--out") -> None:
        self.path = path
        self.last_point: str | None = None  # the label of the last point this store wrote, for a fault's message
        if create:
            results_file(path, flag)
        elif not path.is_file():
            raise BadInputError(f"results file {path} does not exist; run `ov-tuner sweep MODEL --out {path}` first")
        try:
            self._db = sqlite3.connect(path) if create else self._read_only(path)
            self._db.row_factory = sqlite3.Row
            if create:
                self._migrate(self._db)
        except sqlite3.DatabaseError as e:
            raise BadInputError(f"{path} is not an ov-tuner results file ({e}); pick another --out path") from e

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One committed transaction; a write the disk or the file system refuses becomes one line that says
        why and what is kept. SQLite rolls the transaction back, so the file holds every earlier point whole."""
        try:
            with self._db:
                yield
        except sqlite3.OperationalError as e:
            text = str(e)
            cause = ("the disk is full" if "full" in text else
                     "the file or its folder became read-only" if "readonly" in text or "unable to open" in text
                     else f"SQLite said: {text}")
            last = (f"the last point stored is {self.last_point}" if self.last_point
                    else "no point of this run was stored")
            raise ResultsWriteError(f"cannot write to {self.path}: {cause}; {last}, and everything stored before is "
                                    "kept: fix it and run the same command to resume") from e

    def _read_only(self, path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        tables = table_names(db)
        if not tables:
            db.close()
            raise BadInputError(f"{path} holds no sweep yet; run `ov-tuner sweep MODEL --out {path}` first")
        if "meta" in tables and self._version(db) == SCHEMA_VERSION:
            return db
        memory = sqlite3.connect(":memory:")  # an older file: upgrade a copy, leave the file as it is
        db.backup(memory)
        db.close()
        self._migrate(memory)
        return memory

    def _version(self, db: sqlite3.Connection) -> int | None:
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = None if row is None else int(row[0])
        if version is not None and version > SCHEMA_VERSION:
            raise IncompatibleResultsError(
                f"{self.path} has results schema v{version}; this ov-tuner reads up to v{SCHEMA_VERSION}. "
                "Upgrade ov-tuner, or sweep into a new --out file"
            )
        return version

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Create the tables of a new file, or bring an older one up to SCHEMA_VERSION; a current file is left
        byte for byte as it was."""
        tables = table_names(db)
        if tables and "meta" not in tables:
            raise sqlite3.DatabaseError("it has tables of another program")
        version = self._version(db) if tables else None
        if version == SCHEMA_VERSION:
            return
        with db:
            for step in range(version or SCHEMA_VERSION, SCHEMA_VERSION):
                for statement in UPGRADES[step]:
                    added_to = re.match(r"ALTER TABLE (\w+) ADD COLUMN", statement)
                    if added_to is None or added_to.group(1) in table_names(db):  # else SCHEMA makes it whole
                        db.execute(statement)
            db.executescript(SCHEMA)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    # -- environment ---------------------------------------------------------------------------

    def environment(self) -> Environment | None:
        row = self._db.execute("SELECT value FROM meta WHERE key='environment'").fetchone()
        return Environment(**json.loads(row[0])) if row else None

    def claim(self, env: Environment) -> None:
        """Record `env`, or refuse when the file already holds results from a different one."""
        stored = self.environment()
        if stored is None:
            with self._writing():
                self._db.execute("INSERT INTO meta VALUES ('environment', ?)", (json.dumps(asdict(env)),))
            return
        differing = stored.mismatches(env)
        if differing:
            detail = ", ".join(f"{k} {getattr(stored, k)!r} vs now {getattr(env, k)!r}" for k in differing)
            raise IncompatibleResultsError(
                f"{self.path} holds results measured elsewhere ({detail}); sweep into a new --out file"
            )

    def record_device(self, device: DeviceInfo) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO devices VALUES (?, ?)", (device.name, json.dumps(asdict(device))))

    def devices(self) -> dict[str, DeviceInfo]:
        result = {}
        for row in self._db.execute("SELECT info FROM devices"):
            info = json.loads(row[0])
            info["streams_range"] = tuple(info["streams_range"]) if info["streams_range"] else None
            info["capabilities"] = tuple(info["capabilities"])
            info["members"] = tuple(info.get("members", ()))
            result[info["name"]] = DeviceInfo(**info)
        return result

    # -- compiles and points -------------------------------------------------------------------

    def add_compile(self, info: CompileInfo) -> int:
        k = info.key
        with self._writing():
            cursor = self._db.execute(
                "INSERT INTO compiles (device, precision, batch, streams, mode, requested, num_streams, "
                "inference_precision, executed_precision, optimal_nireq, execution_devices, compile_ms, "
                "first_infer_ms, ir_path, created_at, weights_precision, read_back, settings, from_cache, native_log) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (k.device, k.precision.value, k.batch, k.streams, k.mode.value, json.dumps(info.requested),
                 info.num_streams,
                 info.inference_precision, info.executed_precision, info.optimal_nireq,
                 json.dumps(list(info.execution_devices)), info.compile_ms, info.first_infer_ms, info.ir_path, _now(),
                 info.weights_precision, json.dumps(info.read_back), json.dumps(k.settings), info.from_cache,
                 info.native_log),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_point(self, point: PointResult, compile_id: int | None) -> None:
        """Store a point (replacing an earlier failed try of the same configuration) and commit."""
        c, m = point.config, point.measurement
        values: tuple[object, ...] = (None,) * 18
        if m is not None:
            lat, ci = m.latency, m.fps_ci95 or (None, None)
            values = (m.requests, m.frames, m.wall_s, m.fps, lat.median, lat.p90, lat.p99, lat.min, lat.max,
                      lat.count, m.fps_cv, *ci, m.ended.value, m.client_cpu_share,
                      json.dumps([asdict(w) for w in m.windows]), _blob(m.latencies_ms),
                      m.process_cpu_s)
        with self._writing():
            self._db.execute(
                "INSERT OR REPLACE INTO points (device, precision, batch, streams, nireq, mode, input_mode, settings, "
                "status, error, compile_id, requests, frames, wall_s, fps, lat_median_ms, lat_p90_ms, lat_p99_ms, "
                "lat_min_ms, lat_max_ms, lat_count, fps_cv, fps_ci95_low, fps_ci95_high, ended, client_cpu_share, "
                "windows, latencies_ms, process_cpu_s, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (c.device, c.precision.value, c.batch, c.streams, c.nireq, c.mode.value, c.input_mode.value,
                 json.dumps(c.settings), point.status.value, point.error, compile_id, *values, _now()),
            )
        self.last_point = c.label()

    def add_coldstart(self, cold: ColdStart) -> None:
        k = cold.key
        with self._writing():
            self._db.execute(
                "INSERT INTO coldstarts (device, precision, batch, streams, samples, created_at) VALUES (?,?,?,?,?,?)",
                (k.device, k.precision.value, k.batch, k.streams, json.dumps([asdict(x) for x in cold.samples]),
                 _now()),
            )

    def coldstarts(self) -> list[ColdStart]:
        return [ColdStart(CompileKey(r["device"], Precision(r["precision"]), r["batch"], r["streams"]),
                          tuple(ColdStartSample(**s) for s in json.loads(r["samples"])))
                for r in self._db.execute("SELECT * FROM coldstarts ORDER BY id")]

    def add_profile(self, profile: Profile) -> None:
        c = profile.config
        with self._writing():
            self._db.execute(
                "INSERT INTO profiles (device, precision, batch, streams, nireq, inferences, mean_request_ms, layers, "
                "created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (c.device, c.precision.value, c.batch, c.streams, c.nireq, profile.inferences, profile.mean_request_ms,
                 json.dumps([asdict(layer) for layer in profile.layers]), _now()),
            )

    def profiles(self) -> list[Profile]:
        return [Profile(PointConfig(r["device"], Precision(r["precision"]), r["batch"], r["streams"], r["nireq"]),
                        r["inferences"], r["mean_request_ms"],
                        tuple(LayerTime(**layer) for layer in json.loads(r["layers"])))
                for r in self._db.execute("SELECT * FROM profiles ORDER BY id")]

    # -- confirmation rounds --------------------------------------------------------------------

    def begin_confirmation(self, device: str, contenders: list[Contender], rounds: int, window_s: float) -> int:
        """Store a round's contenders, each with its compile (read-back properties and all), before its passes."""
        compile_ids = [self.add_compile(c.compile) if c.compile is not None else None for c in contenders]
        with self._writing():
            cursor = self._db.execute("INSERT INTO confirmations (device, rounds, window_s, created_at) VALUES "
                                      "(?,?,?,?)", (device, rounds, window_s, _now()))
            assert cursor.lastrowid is not None
            for position, (contender, compile_id) in enumerate(zip(contenders, compile_ids, strict=True)):
                self._db.execute(
                    "INSERT INTO confirm_contenders (confirmation_id, position, device, precision, batch, streams, "
                    "nireq, mode, input_mode, settings, ran_streams, ran_nireq, compile_id, twin) VALUES "
                    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (cursor.lastrowid, position, *_config_values(contender.config), contender.streams,
                     contender.nireq, compile_id, int(contender.twin)))
        return cursor.lastrowid

    def add_round_window(self, confirmation_id: int, w: RoundWindow) -> None:
        with self._writing():
            self._db.execute("INSERT INTO confirm_windows VALUES (?,?,?,?,?,?)",
                             (confirmation_id, w.round, w.visit, w.contender, json.dumps(asdict(w.window)),
                              _blob(w.latencies_ms)))

    def confirmations(self) -> list[Confirmation]:
        """Every confirmation round, oldest first, with its contenders' compiles and its stored windows."""
        result = []
        compiles = self._compiles()
        for r in self._db.execute("SELECT * FROM confirmations ORDER BY id").fetchall():
            contenders = tuple(
                Contender(_config_from_row(c), c["ran_streams"], c["ran_nireq"], compiles.get(c["compile_id"]),
                          bool(c["twin"]))
                for c in self._db.execute("SELECT * FROM confirm_contenders WHERE confirmation_id = ? "
                                          "ORDER BY position", (r["id"],)))
            windows = tuple(
                RoundWindow(w["round"], w["visit"], w["position"], Window(**json.loads(w["window"])),
                            _array(w["latencies_ms"]))
                for w in self._db.execute("SELECT * FROM confirm_windows WHERE confirmation_id = ? ORDER BY visit",
                                          (r["id"],)))
            result.append(Confirmation(r["device"], contenders, windows, r["rounds"], r["window_s"]))
        return result

    def has_confirmation(self, configs: list[PointConfig]) -> bool:
        """Whether a confirmation round already measured exactly these configurations through its first passes."""
        wanted = set(configs)
        return any({c.config for c in done.contenders} == wanted and len(done.complete_rounds()) >= done.rounds
                   for done in self.confirmations())

    # -- output accuracy ------------------------------------------------------------------------------------

    def reference(self, batch: int, inputs: int) -> tuple[bool, bytes] | None:
        """The stored FP32 reference outputs for a batch and input count: (deterministic, compressed arrays)."""
        row = self._db.execute("SELECT deterministic, outputs FROM accuracy_references WHERE batch = ? AND inputs = ?",
                               (batch, inputs)).fetchone()
        return (bool(row[0]), bytes(row[1])) if row else None

    def add_reference(self, batch: int, inputs: int, deterministic: bool, outputs: bytes) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO accuracy_references VALUES (?,?,?,?,?)",
                             (batch, inputs, int(deterministic), outputs, _now()))

    def add_accuracy(self, accuracy: Accuracy) -> None:
        with self._writing():
            self._db.execute(
                "INSERT OR REPLACE INTO accuracy (device, precision, batch, inputs, outputs, error, created_at) "
                "VALUES (?,?,?,?,?,?,?)",
                (accuracy.device, accuracy.precision.value, accuracy.batch, accuracy.inputs,
                 json.dumps([asdict(o) for o in accuracy.outputs]), accuracy.error, _now()))

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
                (*_config_values(config), target.fps, target.max_latency_ms, target.percentile,
                 target.arrival.value, int(searched), _now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_trial(self, capacity_id: int, trial: LoadTrial) -> None:
        with self._writing():
            position = self._db.execute("SELECT COUNT(*) FROM load_trials WHERE capacity_id = ?",
                                        (capacity_id,)).fetchone()[0]
            self._db.execute("INSERT INTO load_trials VALUES (?,?,?,?,?,?,?,?,?,?)",
                             (capacity_id, position, trial.cameras, trial.seconds, trial.offered, trial.dropped,
                              _blob(trial.latencies_ms), _blob(trial.service_ms), trial.foreign_cpu, trial.steal))

    def capacities(self) -> list[Capacity]:
        """Every capacity run, oldest first, with its trials in the order they ran."""
        result = []
        for r in self._db.execute("SELECT * FROM capacities ORDER BY id").fetchall():
            trials = tuple(
                LoadTrial(t["cameras"], t["seconds"], t["offered"], t["dropped"], _array(t["latencies_ms"]),
                          _array(t["service_ms"]), t["foreign_cpu"], t["steal"])
                for t in self._db.execute("SELECT * FROM load_trials WHERE capacity_id = ? ORDER BY position",
                                          (r["id"],)))
            target = CameraTarget(r["fps"], r["max_latency_ms"], r["percentile"], Arrival(r["arrival"]))
            result.append(Capacity(_config_from_row(r), target, bool(r["searched"]), trials))
        return result

    def begin_soak(self, config: PointConfig, planned_s: float, window_s: float) -> int:
        with self._writing():
            cursor = self._db.execute(
                "INSERT INTO soaks (device, precision, batch, streams, nireq, mode, input_mode, settings, planned_s, "
                "window_s, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (*_config_values(config), planned_s, window_s, _now()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_soak_window(self, soak_id: int, w: SoakWindow) -> None:
        with self._writing():
            position = self._db.execute("SELECT COUNT(*) FROM soak_windows WHERE soak_id = ?",
                                        (soak_id,)).fetchone()[0]
            self._db.execute("INSERT INTO soak_windows VALUES (?,?,?,?,?)",
                             (soak_id, position, w.start_s, json.dumps(asdict(w.window)), _blob(w.latencies_ms)))

    def soaks(self) -> list[Soak]:
        """Every soak, oldest first, with the windows it stored (all of them, or those before a Ctrl-C)."""
        return [Soak(_config_from_row(r), r["planned_s"], r["window_s"], tuple(
                    SoakWindow(w["start_s"], Window(**json.loads(w["window"])), _array(w["latencies_ms"]))
                    for w in self._db.execute("SELECT * FROM soak_windows WHERE soak_id = ? ORDER BY position",
                                              (r["id"],))))
                for r in self._db.execute("SELECT * FROM soaks ORDER BY id").fetchall()]

    def compile_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM compiles").fetchone()[0])

    def point_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    def _compiles(self) -> dict[int, CompileInfo]:
        return {r["id"]: _compile_from_row(r) for r in self._db.execute("SELECT * FROM compiles")}

    def points(self) -> list[PointResult]:
        """Every stored point in sweep order, with its compiled model's read-back and its raw latencies."""
        compiles = self._compiles()
        rows = self._db.execute(
            "SELECT * FROM points ORDER BY device, precision, batch, input_mode, mode, streams, nireq")
        return [_point_from_row(r, compiles.get(r["compile_id"])) for r in rows]


def _compile_from_row(r: sqlite3.Row) -> CompileInfo:
    return CompileInfo(
        key=CompileKey(r["device"], Precision(r["precision"]), r["batch"], r["streams"], Mode(r["mode"]),
                       _settings(r["settings"])),
        requested=json.loads(r["requested"]),
        num_streams=r["num_streams"],
        inference_precision=r["inference_precision"],
        executed_precision=r["executed_precision"],
        optimal_nireq=r["optimal_nireq"],
        execution_devices=tuple(json.loads(r["execution_devices"])),
        compile_ms=r["compile_ms"],
        first_infer_ms=r["first_infer_ms"],
        ir_path=r["ir_path"],
        weights_precision=r["weights_precision"],
        read_back=json.loads(r["read_back"]),
        from_cache=None if r["from_cache"] is None else bool(r["from_cache"]),
        native_log=r["native_log"],
    )


def _config_from_row(r: sqlite3.Row) -> PointConfig:
    return PointConfig(r["device"], Precision(r["precision"]), r["batch"], r["streams"], r["nireq"], Mode(r["mode"]),
                       InputMode(r["input_mode"]), _settings(r["settings"]))


def _config_values(c: PointConfig) -> tuple[object, ...]:
    """A configuration's columns, in the order every table that names one uses."""
    return (c.device, c.precision.value, c.batch, c.streams, c.nireq, c.mode.value, c.input_mode.value,
            json.dumps(c.settings))


def _blob(values: np.ndarray) -> bytes:
    """Latencies as float32 bytes: half the size, and still finer than any clock they came from."""
    return np.asarray(values, dtype=np.float32).tobytes()


def _array(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32).astype(np.float64)


def _settings(text: str) -> Settings:
    return tuple((str(k), str(v)) for k, v in json.loads(text))


def _point_from_row(r: sqlite3.Row, compile_info: CompileInfo | None) -> PointResult:
    measurement = None
    if r["status"] == Status.OK.value:
        measurement = Measurement(
            requests=r["requests"],
            frames=r["frames"],
            wall_s=r["wall_s"],
            latencies_ms=_array(r["latencies_ms"]),
            windows=tuple(Window(**w) for w in json.loads(r["windows"])),
            ended=Ending(r["ended"]),
            client_cpu_share=r["client_cpu_share"],
            process_cpu_s=r["process_cpu_s"],
        )
    return PointResult(_config_from_row(r), Status(r["status"]), compile_info, measurement, r["error"])


@dataclass(frozen=True)
class StoredResults:
    """Everything in a results file, for analysis, plots and reports."""

    path: Path
    environment: Environment
    devices: dict[str, DeviceInfo]
    points: list[PointResult]
    coldstarts: list[ColdStart] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    confirmations: list[Confirmation] = field(default_factory=list)
    accuracies: list[Accuracy] = field(default_factory=list)
    capacities: list[Capacity] = field(default_factory=list)
    soaks: list[Soak] = field(default_factory=list)

    def latest_profiles(self) -> list[Profile]:
        """The most recent profile of each configuration."""
        return list({p.config: p for p in self.profiles}.values())


def load_results(path: Path) -> StoredResults:
    """Read a results file written by `ov-tuner sweep`."""
    with ResultStore(path, create=False) as store:
        env = store.environment()
        if env is None:
            raise BadInputError(f"{path} holds no sweep yet; run `ov-tuner sweep MODEL --out {path}` first")
        return StoredResults(path, env, store.devices(), store.points(), store.coldstarts(), store.profiles(),
                             store.confirmations(), store.accuracies(), store.capacities(), store.soaks())
