"""Results on disk: one SQLite file, one row per point, committed before the next point starts.

Raw per-request latencies are kept (float32 milliseconds), so a new statistic never needs a re-run.
The file records the environment it was measured in and refuses results from another one.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ov_tuner.errors import BadInputError, IncompatibleResultsError, Input
from ov_tuner.schema import (
    Accuracy,
    Capacity,
    ColdStart,
    CompileInfo,
    Confirmation,
    Contender,
    DeviceInfo,
    Environment,
    Int8Options,
    Merged,
    MergeReason,
    ModelInputs,
    PointConfig,
    PointResult,
    Precision,
    Preset,
    Profile,
    Quantization,
    RoundWindow,
    Soak,
    Window,
)
from ov_tuner.store.edge_records import MoreRecords
from ov_tuner.store.rows import array, blob, compile_from_row, config_from_row, config_values, now, point_from_row
from ov_tuner.store.tables import SWEEP_TABLES, Writer, quantization_fields


class ResultStore(MoreRecords):
    """An open results file: the environment, and a sweep's devices, compiles, points and confirmation rounds (and,
    through MoreRecords, what its parts add). Use as a context manager; every write is committed at once.

    The sweep's tables (SWEEP_TABLES) are made in a sweep's file alone: a workload's store that subclasses this one
    declares its own OWN_TABLES in their place."""

    OWN_TABLES = (SWEEP_TABLES,)

    # -- environment ---------------------------------------------------------------------------

    def environment(self) -> Environment | None:
        row = self._db.execute("SELECT value FROM meta WHERE key='environment'").fetchone()
        return Environment.from_stored(json.loads(row[0])) if row else None

    def claim(self, env: Environment, writer: Writer) -> None:
        """Record `env` and the workload about to write (`writer`; a model's sweep and the jobs that run its answer
        write a sweep's), or refuse when the file already holds results from a different environment, or another
        workload's. Two processes claiming a new file at once: the first's environment is kept, and the second is
        held to it."""
        if self.writer() is None:
            with self._writing():
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('workload', ?)", (json.dumps(asdict(writer)),))
        found = self.writer()
        assert found is not None  # this process's, or the one that claimed the file first
        if found.name != writer.name:
            raise IncompatibleResultsError(f"{self.path} is {found.whose} results file; tune into a new "
                                           f"{Input.RESULTS} file")
        if self.environment() is None:
            with self._writing():
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('environment', ?)", (json.dumps(asdict(env)),))
        stored = self.environment()
        assert stored is not None  # this process's, or the one that claimed the file first
        differing = stored.mismatches(env)
        if differing:
            detail = ", ".join(f"{k} {_bounds(stored) if k == 'box' else repr(getattr(stored, k))} vs now "
                               f"{_bounds(env) if k == 'box' else repr(getattr(env, k))}" for k in differing)
            raise IncompatibleResultsError(
                f"{self.path} holds results measured elsewhere ({detail}); tune into a new {Input.RESULTS} file"
            )

    def record_quantization(self, record: Quantization) -> None:
        """How the INT8 IR was made; a resumed sweep that reused the same IR keeps the record of its making, and
        one with another INT8 IR (other calibration data or options) is refused: its int8 points would mix."""
        stored = self.quantization()
        if stored is not None and stored.ir == record.ir:
            return
        self.check_int8_ir(record.ir)
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('quantization', ?)", (json.dumps(asdict(record)),))

    def check_int8_ir(self, ir: str) -> None:
        """Refuse int8 points of another INT8 IR than the file's own, if it has one: they would mix."""
        stored = self.quantization()
        if stored is not None and stored.ir != ir:
            raise IncompatibleResultsError(
                f"{self.path} holds int8 points of another INT8 IR (made by NNCF {stored.nncf_version or '-'}: "
                f"{stored.command or stored.ir}); this sweep's comes from other images, options, or NNCF, OpenVINO "
                f"or ov-tuner versions: sweep into a new {Input.RESULTS} file")

    def quantization(self) -> Quantization | None:
        row = self._db.execute("SELECT value FROM meta WHERE key='quantization'").fetchone()
        if not row:
            return None
        fields = quantization_fields(json.loads(row[0]))
        options = fields.pop("options")
        return Quantization(**fields, options=Int8Options(Preset(options["preset"]), options["subset_size"],
                                                          options["max_drop"]))

    def record_inputs(self, inputs: ModelInputs) -> None:
        """The sweep's --shape and --layout; a resumed sweep with others is refused: its points would mix sizes."""
        if self.inputs() is None:  # INSERT OR IGNORE: another process may have recorded its own just now
            with self._writing():
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('inputs', ?)", (json.dumps(asdict(inputs)),))
        stored = self.inputs()
        if stored is not None and stored != inputs:
            raise IncompatibleResultsError(
                f"{self.path} holds points measured with {Input.SHAPE} {stored.shapes or 'none'} and {Input.LAYOUT} "
                f"{stored.layouts or 'none'}; this sweep gives {inputs.shapes or 'none'} and "
                f"{inputs.layouts or 'none'}: sweep into a new {Input.RESULTS} file")

    def inputs(self) -> ModelInputs | None:
        """The sweep's --shape and --layout; None in a file written before ov-tuner kept them."""
        row = self._db.execute("SELECT value FROM meta WHERE key='inputs'").fetchone()
        return ModelInputs(**json.loads(row[0])) if row else None

    def record_merged(self, merged: Merged) -> None:
        """A precision measured once, as another (auto's choice from the device's listing, or a compile that read
        back fp32's math): kept, so that every output names what was merged in this file and nothing else."""
        known = self.merged()
        if merged in known:
            return
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('merged', ?)",
                             (json.dumps([asdict(m) for m in (*known, merged)]),))

    def merged(self) -> list[Merged]:
        row = self._db.execute("SELECT value FROM meta WHERE key='merged'").fetchone()
        return [Merged(m["device"], Precision(m["precision"]), Precision(m["measured_as"]), MergeReason(m["reason"]),
                       m["ran"]) for m in json.loads(row[0])] if row else []

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
                 json.dumps(list(info.execution_devices)), info.compile_ms, info.first_infer_ms, info.ir_path, now(),
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
                      json.dumps([asdict(w) for w in m.windows]), blob(m.latencies_ms),
                      m.process_cpu_s)
        with self._writing():
            self._db.execute(
                "INSERT OR REPLACE INTO points (device, precision, batch, streams, nireq, mode, input_mode, settings, "
                "status, error, compile_id, requests, frames, wall_s, fps, lat_median_ms, lat_p90_ms, lat_p99_ms, "
                "lat_min_ms, lat_max_ms, lat_count, fps_cv, fps_ci95_low, fps_ci95_high, ended, client_cpu_share, "
                "windows, latencies_ms, process_cpu_s, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (c.device, c.precision.value, c.batch, c.streams, c.nireq, c.mode.value, c.input_mode.value,
                 json.dumps(c.settings), point.status.value, point.error, compile_id, *values, now()),
            )
        self.last_point = c.label()

    # -- confirmation rounds --------------------------------------------------------------------

    def begin_confirmation(self, device: str, contenders: list[Contender], passes: int, window_s: float) -> int:
        """Store a round's contenders, each with its compile (read-back properties and all), before its passes
        (`passes`: the first passes over every contender; its column keeps the name `rounds`, and each window's pass
        the name `round`, so that older results files open)."""
        compile_ids = [self.add_compile(c.compile) if c.compile is not None else None for c in contenders]
        with self._writing():
            cursor = self._db.execute("INSERT INTO confirmations (device, rounds, window_s, created_at) VALUES "
                                      "(?,?,?,?)", (device, passes, window_s, now()))
            assert cursor.lastrowid is not None
            for position, (contender, compile_id) in enumerate(zip(contenders, compile_ids, strict=True)):
                self._db.execute(
                    "INSERT INTO confirm_contenders (confirmation_id, position, device, precision, batch, streams, "
                    "nireq, mode, input_mode, settings, ran_streams, ran_nireq, compile_id, twin) VALUES "
                    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (cursor.lastrowid, position, *config_values(contender.config), contender.streams,
                     contender.nireq, compile_id, int(contender.twin)))
        return cursor.lastrowid

    def add_round_window(self, confirmation_id: int, w: RoundWindow) -> None:
        with self._writing():
            self._db.execute("INSERT INTO confirm_windows VALUES (?,?,?,?,?,?)",
                             (confirmation_id, w.pass_number, w.visit, w.contender, json.dumps(asdict(w.window)),
                              blob(w.latencies_ms)))

    def confirmations(self) -> list[Confirmation]:
        """Every confirmation round, oldest first, with its contenders' compiles and its stored windows."""
        result = []
        compiles = self._compiles()
        for r in self._db.execute("SELECT * FROM confirmations ORDER BY id").fetchall():
            contenders = tuple(
                Contender(config_from_row(c), c["ran_streams"], c["ran_nireq"], compiles.get(c["compile_id"]),
                          bool(c["twin"]))
                for c in self._db.execute("SELECT * FROM confirm_contenders WHERE confirmation_id = ? "
                                          "ORDER BY position", (r["id"],)))
            windows = tuple(
                RoundWindow(w["round"], w["visit"], w["position"], Window(**json.loads(w["window"])),
                            array(w["latencies_ms"]))
                for w in self._db.execute("SELECT * FROM confirm_windows WHERE confirmation_id = ? ORDER BY visit",
                                          (r["id"],)))
            result.append(Confirmation(r["device"], contenders, windows, r["rounds"], r["window_s"]))
        return result

    def has_confirmation(self, configs: list[PointConfig]) -> bool:
        """Whether a confirmation round already measured exactly these configurations through its first passes."""
        wanted = set(configs)
        return any({c.config for c in done.contenders} == wanted and len(done.complete_passes()) >= done.passes
                   for done in self.confirmations())

    def compile_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM compiles").fetchone()[0])

    def point_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    def _compiles(self) -> dict[int, CompileInfo]:
        return {r["id"]: compile_from_row(r) for r in self._db.execute("SELECT * FROM compiles")}

    def points(self) -> list[PointResult]:
        """Every stored point in sweep order, with its compiled model's read-back and its raw latencies."""
        compiles = self._compiles()
        rows = self._db.execute(
            "SELECT * FROM points ORDER BY device, precision, batch, input_mode, mode, streams, nireq")
        return [point_from_row(r, compiles.get(r["compile_id"])) for r in rows]


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
    quantization: Quantization | None = None
    merged: list[Merged] = field(default_factory=list)  # precisions measured once, as another
    inputs: ModelInputs | None = None  # the sweep's --shape and --layout (None: not kept in older files)

    def latest_profiles(self) -> list[Profile]:
        """The most recent profile of each configuration."""
        return list({p.config: p for p in self.profiles}.values())


def _bounds(env: Environment) -> str:
    """'(cpuset 0,1; quota 1.0 CPUs)', for a refusal to mix results measured in different boxes."""
    assert env.box is not None
    quota = f"{env.box.quota_cpus:g} CPUs" if env.box.quota_cpus is not None else "none"
    return f"(cpuset {','.join(map(str, env.box.cpuset))}; quota {quota})"


def load_results(path: Path) -> StoredResults:
    """Read a results file written by `ov-tuner sweep`."""
    with ResultStore(path, create=False) as store:
        env = store.environment()
        if env is None:
            raise BadInputError(f"{path} holds no sweep yet; run `ov-tuner sweep MODEL {Input.RESULTS} {path}` first")
        return StoredResults(path, env, store.devices(), store.points(), coldstarts=store.coldstarts(),
                             profiles=store.profiles(), confirmations=store.confirmations(),
                             accuracies=store.accuracies(), capacities=store.capacities(), soaks=store.soaks(),
                             quantization=store.quantization(), merged=store.merged(), inputs=store.inputs())
