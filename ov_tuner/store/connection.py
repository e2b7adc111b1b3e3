"""The results file itself: opening it (created, or read only), bringing an older one up to the current schema, and
one committed transaction per write whose failure becomes one line saying what is kept."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from ov_tuner.errors import BadInputError, IncompatibleResultsError, Input, ResultsWriteError
from ov_tuner.store.destinations import results_file
from ov_tuner.store.tables import RESULTS_SCHEMA_VERSION, SCHEMA, UPGRADES, OwnTables, Writer, table_names

Opened = TypeVar("Opened", bound="Connection")


class Connection:
    """An open results file. Use as a context manager; every write is committed at once.

    `create=False` opens it for reading only: the file is never modified, not even upgraded; a file written
    by an older ov-tuner is upgraded in a copy in memory.

    A workload's store declares its own tables (`OWN_TABLES`, a subclass's): made where the file lacks them, and
    brought up to their version, as every file's tables are, when the file is opened (read only: in the copy).
    """

    OWN_TABLES: tuple[OwnTables, ...] = ()

    def __init__(self, path: Path, create: bool = True) -> None:
        self.path = path
        self.last_point: str | None = None  # the label of the last point this store wrote, for a fault's message
        self._writable = create
        if create:
            results_file(path)
        elif not path.is_file():
            raise BadInputError(f"results file {path} does not exist; write it first with a workload's command")
        try:
            self._db = sqlite3.connect(path) if create else self._read_only(path)
            self._db.row_factory = sqlite3.Row
            if create:
                self._migrate(self._db)
        except sqlite3.DatabaseError as e:
            raise BadInputError(f"{path} is not an ov-tuner results file ({e}); pick another {Input.RESULTS} "
                                "path") from e

    def __enter__(self: Opened) -> Opened:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def writer(self) -> Writer | None:
        """The workload that claimed the file; None while none has (a new file)."""
        row = self._db.execute("SELECT value FROM meta WHERE key='workload'").fetchone()
        return Writer(**json.loads(row[0])) if row else None

    def write(self, statement: str, values: Sequence[object] = ()) -> None:
        """One statement written and committed at once (a plug-in workload's records, as it measures them)."""
        with self._writing():
            self._db.execute(statement, tuple(values))

    def rows(self, query: str, values: Sequence[object] = ()) -> list[sqlite3.Row]:
        """What `query` reads; none where it reads a table the file lacks (a file its workload never wrote)."""
        try:
            return list(self._db.execute(query, tuple(values)))
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return []
            raise

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
            raise BadInputError(f"{path} holds no results yet; write it first with a workload's command")
        if ("meta" in tables and self._version(db) == RESULTS_SCHEMA_VERSION
                and all(self._own_version(db, own) == own.version for own in self.OWN_TABLES)):
            return db
        memory = sqlite3.connect(":memory:")  # an older file: upgrade a copy, leave the file as it is
        db.backup(memory)
        db.close()
        self._migrate(memory)
        return memory

    def _version(self, db: sqlite3.Connection) -> int | None:
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = None if row is None else int(row[0])
        if version is not None and version > RESULTS_SCHEMA_VERSION:
            raise IncompatibleResultsError(
                f"{self.path} has results schema v{version}; this ov-tuner reads up to v{RESULTS_SCHEMA_VERSION}. "
                f"Upgrade ov-tuner, or tune into a new {Input.RESULTS} file"
            )
        return version

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Create the tables of a new file, or bring an older one up to RESULTS_SCHEMA_VERSION, and the workload's own
        up to theirs; a current file is left byte for byte as it was."""
        tables = table_names(db)
        if tables and "meta" not in tables:
            raise sqlite3.DatabaseError("it has tables of another program")
        version = self._version(db) if tables else None
        with db:
            if version != RESULTS_SCHEMA_VERSION:
                if version is not None:  # the version a workload's own tables had, where they have none of their own
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('tables_from', ?)", (str(version),))
                _upgrade(db, UPGRADES, version or RESULTS_SCHEMA_VERSION, RESULTS_SCHEMA_VERSION)
                db.executescript(SCHEMA)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(RESULTS_SCHEMA_VERSION),))
            for own in self.OWN_TABLES:
                self._own_tables(db, own)

    def _own_tables(self, db: sqlite3.Connection, own: OwnTables) -> None:
        """Make `own`'s tables where the file lacks them, or bring them up to their version; a file another workload
        claimed is left as it is (its claim refuses it next), but in a copy read in memory."""
        found = self._own_version(db, own)
        if found == own.version or (self._writable and _claimed_by_another(db, own.name)):
            return
        _upgrade(db, own.upgrades, found or own.version, own.version)
        db.executescript(own.schema)
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"schema_version:{own.name}", str(own.version)))

    def _own_version(self, db: sqlite3.Connection, own: OwnTables) -> int | None:
        """The version of `own`'s tables in the file; None where it has none of them. Tables from before they had a
        version of their own are at the results schema's version the file had before its first upgrade (ov-tuner's
        own were numbered so), or at their own current version where that is lower (a plug-in's began at 1)."""
        if not set(own.tables()) & table_names(db):
            return None
        kept = {key: int(value) for key, value in db.execute("SELECT key, value FROM meta")
                if key in (f"schema_version:{own.name}", "tables_from", "schema_version")}
        if f"schema_version:{own.name}" not in kept:
            return min(kept.get("tables_from", kept.get("schema_version", own.version)), own.version)
        version = kept[f"schema_version:{own.name}"]
        if version > own.version:
            raise IncompatibleResultsError(
                f"{self.path} has {own.name} tables of v{version}; this ov-tuner reads up to v{own.version}. Upgrade "
                f"ov-tuner, or tune into a new {Input.RESULTS} file")
        return version


def _claimed_by_another(db: sqlite3.Connection, name: str) -> bool:
    """Whether a workload other than the one registered as `name` claimed the file."""
    row = db.execute("SELECT value FROM meta WHERE key = 'workload'").fetchone()
    return row is not None and json.loads(row[0])["name"] != name


def _upgrade(db: sqlite3.Connection, upgrades: Mapping[int, tuple[str, ...]], found: int, current: int) -> None:
    """Run the upgrades that bring tables from version `found` up to `current`, each statement where it applies."""
    for step in range(found, current):
        for statement in upgrades.get(step, ()):
            if _applies(db, statement):
                db.execute(statement)


def _applies(db: sqlite3.Connection, statement: str) -> bool:
    """Whether an upgrade's statement has work to do: one that alters a table the file lacks is left to SCHEMA,
    which makes the table whole, one that copies rows from a table the file lacks is left out, and a column the table
    already has is not added twice (a table made by a later ov-tuner in a file that says an earlier version, as the
    tests' rewound files do)."""
    read = re.search(r"^INSERT .* FROM (\w+)", statement)
    if read is not None:  # one that copies from a table the file lacks has nothing to copy
        return read.group(1) in table_names(db)
    changed = re.match(r"(?:ALTER TABLE|UPDATE) (\w+) (?:ADD COLUMN (\w+)|SET)", statement)
    if changed is None:
        return True
    table, column = changed.groups()
    if table not in table_names(db):
        return False
    return column is None or column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
