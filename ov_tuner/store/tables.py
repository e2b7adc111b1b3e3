"""The results file's tables, and what brings a file written by an older ov-tuner up to the current schema."""

from __future__ import annotations

import re
import shlex
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field

RESULTS_SCHEMA_VERSION = 22


@dataclass(frozen=True)
class Writer:
    """The workload that writes a results file, as it registered (ov_tuner.registry): its name, kept in the file so
    every command over it finds the workload again, and whose file it is, as a one-line refusal names it ("is an
    LLM's results file"). The store names no workload: each brings its own."""

    name: str
    whose: str


@dataclass(frozen=True)
class OwnTables:
    """A workload's own tables in the results files it writes, made and brought up to date by that workload's store
    (Connection.OWN_TABLES, a subclass's) and versioned apart from every file's, so the store names no workload's:
    `name`, its workload's registered name (they are made only in a file no other workload claimed), under which
    `meta` keeps their version; `version`, the current one; `schema`, CREATE TABLE IF NOT EXISTS statements with the
    current columns; `upgrades`, what brings its tables from version N to N + 1. Up to v21 of the results schema every
    workload's tables were the store's, so the upgrades of ov-tuner's own are numbered as that schema's were (a file
    from then has no version of their own: it is the file's before its first upgrade, or the tables' own current
    version where that is lower, as a plug-in's)."""

    name: str
    version: int
    schema: str
    upgrades: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def tables(self) -> tuple[str, ...]:
        return tuple(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", self.schema))


_POINT_COLUMNS = """
    id INTEGER PRIMARY KEY,
    device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL, streams INTEGER NOT NULL,
    nireq INTEGER NOT NULL, mode TEXT NOT NULL, input_mode TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL, error TEXT,
    compile_id INTEGER REFERENCES compiles(id),
    requests INTEGER, frames INTEGER, wall_s REAL, fps REAL,
    lat_median_ms REAL, lat_p90_ms REAL, lat_p99_ms REAL, lat_min_ms REAL, lat_max_ms REAL, lat_count INTEGER,
    fps_cv REAL, fps_ci95_low REAL, fps_ci95_high REAL, ended TEXT, client_cpu_share REAL,
    windows TEXT, latencies_ms BLOB,
    created_at TEXT NOT NULL, process_cpu_s REAL,
    UNIQUE (device, precision, batch, streams, nireq, mode, input_mode, settings)
"""
_V2_POINT_COLUMNS = ("id, device, precision, batch, streams, nireq, mode, input_mode, status, error, compile_id, "
                     "requests, frames, wall_s, fps, lat_median_ms, lat_p90_ms, lat_p99_ms, lat_min_ms, lat_max_ms, "
                     "lat_count, fps_cv, fps_ci95_low, fps_ci95_high, ended, client_cpu_share, windows, latencies_ms, "
                     "created_at")

# What brings a sweep's tables from version N up to N + 1 (numbered as the results schema's were, up to v22, when
# they were every file's), run in place when the file is opened.
_SWEEP_UPGRADES = {
    1: (  # v2 says why each measurement ended instead of only whether it settled
        "ALTER TABLE points ADD COLUMN ended TEXT",
        "UPDATE points SET ended = CASE settled WHEN 1 THEN 'settled' WHEN 0 THEN 'capped' ELSE 'fixed' END "
        "WHERE status = 'ok'",
    ),
    2: (  # v3: weights' precision, read-back properties, --set properties and cache use per compile; a point's
        # process CPU time and --set properties, which join its identity (so the points table is rebuilt)
        "ALTER TABLE compiles ADD COLUMN weights_precision TEXT NOT NULL DEFAULT 'unknown'",
        "ALTER TABLE compiles ADD COLUMN read_back TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE compiles ADD COLUMN settings TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE compiles ADD COLUMN from_cache INTEGER",
        "ALTER TABLE points RENAME TO points_v2",
        f"CREATE TABLE points ({_POINT_COLUMNS})",
        f"INSERT INTO points ({_V2_POINT_COLUMNS}) SELECT {_V2_POINT_COLUMNS} FROM points_v2",
        "DROP TABLE points_v2",
    ),
    3: (  # v4: what native code wrote during a compile; each confirmation contender's compile, and which are twins
        "ALTER TABLE compiles ADD COLUMN native_log TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE confirm_contenders ADD COLUMN compile_id INTEGER REFERENCES compiles(id)",
        "ALTER TABLE confirm_contenders ADD COLUMN twin INTEGER NOT NULL DEFAULT 0",
    ),
    4: tuple(  # v5: a configuration the tuner chose is an "explicit" one ("grid" named the search mode too)
        f"UPDATE {table} SET mode = 'explicit' WHERE mode = 'grid'"
        for table in ("points", "compiles", "confirm_contenders", "capacities", "soaks")),
    5: (), 6: (),  # v6, v7: a workload's own tables (OwnTables: its own upgrades bring them up)
    7: (),  # v8: the quantization record keeps its images folder as data (quantization_fields fills older ones)
    8: (), 9: (), 10: (), 11: (),  # v9-v12: a workload's own tables
    12: ("ALTER TABLE capacities ADD COLUMN harness_fps REAL",  # v13: the open loop's own ceiling
         "ALTER TABLE capacities ADD COLUMN harness_reached INTEGER"),
    13: (), 14: (),  # v14, v15: a workload's own tables
    15: ("UPDATE points SET ended = 'unsettled' WHERE ended = 'capped'",),  # v16: one name for an unsettled point
    16: (), 17: (), 18: (), 19: (),  # v17-v20: a workload's own tables
    20: (),  # v21: the workload that wrote the file (UPGRADES)
    21: (),  # v22: a workload's own tables are its own, versioned apart (OwnTables); a file's are made by its workload
}

# What brings every file of results schema version N up to N + 1, run in place when the file is opened: what is in
# meta (every other table is a workload's own, OwnTables).
UPGRADES = {
    20: tuple(  # v21: the workload that wrote the file, by its registered name; an older file is the first of the three
        # workloads of its time whose job it holds (a pipeline's or an LLM's file has no points of its own)
        f"INSERT OR IGNORE INTO meta SELECT 'workload', '{{\"name\": \"{name}\", \"whose\": \"{whose}\"}}' "
        f"FROM {table} LIMIT 1"
        for table, name, whose in (("pipelines", "pipeline", "a pipeline''s"), ("llm", "llm", "an LLM''s"),
                                   ("points", "sweep", "a sweep''s"))),
}


def quantization_fields(stored: dict) -> dict:
    """The stored quantization record with the fields of the current schema: a record written before v8 held its
    --images folder only in its `ov-tuner quantize` line, read from there."""
    if "images_dir" in stored:
        return stored
    words = shlex.split(stored["command"])
    folder = words[words.index("--images") + 1] if "--images" in words[:-1] else None
    return {**stored, "images_dir": folder}


# Every results file's one table: the schema's version, the workload that wrote it, the environment it was measured in.
SCHEMA = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

# The columns `rounds` (a confirmation's first passes) and `round` (the pass of a window or trial) keep the names
# they had before the glossary named a round's repetitions passes: older results files open as they are.
_SWEEP_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS devices (name TEXT PRIMARY KEY, info TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS compiles (
    id INTEGER PRIMARY KEY,
    device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL, streams INTEGER NOT NULL,
    mode TEXT NOT NULL, requested TEXT NOT NULL,
    num_streams INTEGER NOT NULL, inference_precision TEXT NOT NULL, executed_precision TEXT NOT NULL,
    optimal_nireq INTEGER NOT NULL, execution_devices TEXT NOT NULL,
    compile_ms REAL NOT NULL, first_infer_ms REAL NOT NULL, ir_path TEXT NOT NULL,
    created_at TEXT NOT NULL, weights_precision TEXT NOT NULL DEFAULT 'unknown', read_back TEXT NOT NULL DEFAULT '{{}}',
    settings TEXT NOT NULL DEFAULT '[]', from_cache INTEGER, native_log TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS coldstarts (
    id INTEGER PRIMARY KEY,
    device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL, streams INTEGER NOT NULL,
    samples TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS profiles (
    id INTEGER PRIMARY KEY,
    device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL, streams INTEGER NOT NULL,
    nireq INTEGER NOT NULL, inferences INTEGER NOT NULL, mean_request_ms REAL NOT NULL,
    layers TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS points ({_POINT_COLUMNS});
CREATE TABLE IF NOT EXISTS confirmations (
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, rounds INTEGER NOT NULL, window_s REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS confirm_contenders (
    confirmation_id INTEGER NOT NULL REFERENCES confirmations(id), position INTEGER NOT NULL,
    device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL, streams INTEGER NOT NULL,
    nireq INTEGER NOT NULL, mode TEXT NOT NULL, input_mode TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '[]',
    ran_streams INTEGER NOT NULL, ran_nireq INTEGER NOT NULL,
    compile_id INTEGER REFERENCES compiles(id), twin INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (confirmation_id, position)
);
CREATE TABLE IF NOT EXISTS accuracy_references (
    batch INTEGER NOT NULL, inputs INTEGER NOT NULL, deterministic INTEGER NOT NULL, outputs BLOB NOT NULL,
    created_at TEXT NOT NULL, PRIMARY KEY (batch, inputs)
);
CREATE TABLE IF NOT EXISTS accuracy (
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL,
    inputs INTEGER NOT NULL, outputs TEXT NOT NULL, error TEXT, created_at TEXT NOT NULL,
    UNIQUE (device, precision, batch)
);
CREATE TABLE IF NOT EXISTS capacities (
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL,
    streams INTEGER NOT NULL, nireq INTEGER NOT NULL, mode TEXT NOT NULL, input_mode TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '[]', fps REAL NOT NULL, max_latency_ms REAL NOT NULL, percentile REAL NOT NULL,
    arrival TEXT NOT NULL, searched INTEGER NOT NULL, created_at TEXT NOT NULL, harness_fps REAL,
    harness_reached INTEGER
);
CREATE TABLE IF NOT EXISTS load_trials (
    capacity_id INTEGER NOT NULL REFERENCES capacities(id), position INTEGER NOT NULL, cameras INTEGER NOT NULL,
    seconds REAL NOT NULL, offered INTEGER NOT NULL, dropped INTEGER NOT NULL, latencies_ms BLOB NOT NULL,
    service_ms BLOB NOT NULL, foreign_cpu REAL, steal REAL, PRIMARY KEY (capacity_id, position)
);
CREATE TABLE IF NOT EXISTS soaks (
    id INTEGER PRIMARY KEY, device TEXT NOT NULL, precision TEXT NOT NULL, batch INTEGER NOT NULL,
    streams INTEGER NOT NULL, nireq INTEGER NOT NULL, mode TEXT NOT NULL, input_mode TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '[]', planned_s REAL NOT NULL, window_s REAL NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS soak_windows (
    soak_id INTEGER NOT NULL REFERENCES soaks(id), position INTEGER NOT NULL, start_s REAL NOT NULL,
    window TEXT NOT NULL, latencies_ms BLOB NOT NULL, PRIMARY KEY (soak_id, position)
);
CREATE TABLE IF NOT EXISTS confirm_windows (
    confirmation_id INTEGER NOT NULL REFERENCES confirmations(id), round INTEGER NOT NULL, visit INTEGER NOT NULL,
    position INTEGER NOT NULL, window TEXT NOT NULL, latencies_ms BLOB NOT NULL,
    PRIMARY KEY (confirmation_id, visit)
);
"""
# A sweep's tables, in a sweep's results file alone (its parts, capacity to profile, write into it): made by
# ResultStore, which opens a sweep's file, and read by what deploys a sweep's answer (deployable/, a pipeline's
# stages). Up to 0.2.0 they were made in every results file, the LLM's and the pipeline's too.
SWEEP_TABLES = OwnTables("sweep", 22, _SWEEP_SCHEMA, _SWEEP_UPGRADES)


def table_names(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
