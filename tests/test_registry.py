"""The registry of workloads (ov_tuner.registry): every workload installed through the `ov_tuner.workloads` entry
points, each with every part the commands ask of it; each results file read as the workload that wrote it says,
files written before it said read by the job they hold; files of two workloads given together refused in one line
naming the odd ones. (A pipeline's file: tests/test_pipeline_job.py, which has one; a workload from outside the
package: tests/test_plugin.py.)"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from factories import assert_one_line, ov_tuner, rewind
from typer.testing import CliRunner

from ov_tuner import API_VERSION, __version__
from ov_tuner.cli import app
from ov_tuner.present.deploy import by_name
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.registry import GROUP, Registration, registered, registry
from ov_tuner.registry.parts import ASKABLE, api_mismatch
from ov_tuner.store.results import ResultStore
from ov_tuner.store.tables import RESULTS_SCHEMA_VERSION, SWEEP_TABLES, Writer
from ov_tuner.workloads.llm.records import LLM_TABLES
from ov_tuner.workloads.llm.results_file import LlmStore

# The parts a workload may go without: each has a one-line refusal in the command that asks for it, or a default.
OPTIONAL = ("compare", "export", "commands")


def missing_parts(workloads: dict[str, Registration]) -> list[str]:
    """`name: part` for each workload registered under another name than its own, or without a part every command
    needs, or without a JSON form."""
    found = []
    for name, registration in workloads.items():
        found += [f"{name}: registered as {registration.name}"] if registration.name != name else []
        found += [f"{name}: {part.name}" for part in dataclasses.fields(registration)
                  if part.name not in OPTIONAL and getattr(registration, part.name) is None]
        found += [] if DeployFormat.JSON in registration.forms() else [f"{name}: no json form"]
        offered = {fmt.value for fmt in DeployFormat} | set(registration.formats)  # what recommend --format takes
        found += [f"{name}: {form} form not in its formats" for form in by_name(registration.forms())
                  if form not in offered]
    return found


def test_every_workload_is_installed_through_its_entry_point_with_every_part() -> None:
    declared = {p.name for p in entry_points(group=GROUP) if p.dist is not None and p.dist.name == "ov-tuner"}
    assert declared == {"sweep", "pipeline", "llm"} <= set(registry())
    assert missing_parts(registry()) == []
    assert [r.name for r in registry().values() if r.reads_unclaimed] == ["sweep"]


def test_a_plug_in_loads_only_where_its_api_version_agrees() -> None:
    major, minor = (int(n) for n in API_VERSION.split("."))
    assert api_mismatch(API_VERSION) is None and api_mismatch(f"{major}.0") is None  # an older minor of this major
    newer_minor, next_major = f"{major}.{minor + 1}", f"{major + 1}.0"
    assert newer_minor in (api_mismatch(newer_minor) or "") and API_VERSION in (api_mismatch(next_major) or "")
    assert "MAJOR.MINOR" in (api_mismatch("one") or "")
    assert {r.api for r in registry().values()} == {API_VERSION}  # ov-tuner's own, as any plug-in declares it
    said = CliRunner().invoke(app, ["--version"])
    assert said.exit_code == 0 and said.output.strip() == f"ov-tuner {__version__}, plug-in API {API_VERSION}"


def test_the_completeness_check_sees_a_misnamed_workload_and_a_missing_part() -> None:
    llm = registry()["llm"]
    assert missing_parts({**registry(), "llm": dataclasses.replace(llm, show=None)}) == [  # type: ignore[arg-type]
        "llm: show"]
    assert missing_parts({**registry(), "llm": registry()["sweep"]}) == ["llm: registered as sweep"]
    assert missing_parts({"llm": dataclasses.replace(llm, forms=lambda: {})}) == ["llm: no json form"]
    undeclared = dataclasses.replace(llm, forms=lambda: {**llm.forms(), "extra": llm.forms()[DeployFormat.JSON]})
    assert missing_parts({"llm": undeclared}) == ["llm: extra form not in its formats"]
    assert missing_parts({"llm": dataclasses.replace(undeclared, formats=("extra",))}) == []


def test_each_file_is_read_as_the_workload_that_wrote_it(swept_db: Path, llm_db: Path, tmp_path: Path) -> None:
    """A sweep's file and an LLM's by the name each keeps; a file no workload claimed yet as a sweep's, whose reader
    says what is missing."""
    assert registered(swept_db).name == "sweep"
    assert registered(llm_db).name == "llm"
    empty = tmp_path / "empty.db"
    with ResultStore(empty):
        pass
    assert registered(empty).name == "sweep"


def test_a_file_written_before_files_named_their_workload_is_read_by_the_job_it_holds(
        swept_db: Path, llm_db: Path, tmp_path: Path) -> None:
    """Files of v20 kept no name: opening one upgrades a copy (the file stays as it was) and reads it as the workload
    whose job it holds, as before."""
    for given, name in ((swept_db, "sweep"), (llm_db, "llm")):
        older = tmp_path / f"{name}_v20.db"
        older.write_bytes(given.read_bytes())
        with sqlite3.connect(older) as db:
            db.execute("DELETE FROM meta WHERE key = 'workload'")
            rewind(db, 20)
        before = older.read_bytes()
        assert registered(older).name == name
        assert older.read_bytes() == before
        with ResultStore(older) as store:  # opened to write: upgraded in place
            assert store.writer() == registry()[name].writer
        with sqlite3.connect(older) as db:
            assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(
                RESULTS_SCHEMA_VERSION)


def tables_of(db: Path) -> set[str]:
    with sqlite3.connect(db) as found:
        return {row[0] for row in found.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_each_workload_keeps_its_own_tables_and_their_version(swept_db: Path, llm_db: Path) -> None:
    """A sweep's file holds the sweep's tables and none of the LLM's or the pipeline's; an LLM's holds its own, at
    their version, and meta, none of the sweep's (every results file held them up to 0.2.0)."""
    assert tables_of(swept_db) == {"meta", *SWEEP_TABLES.tables()}
    assert tables_of(llm_db) == {"meta", *LLM_TABLES.tables()}
    with sqlite3.connect(llm_db) as db:
        kept = db.execute("SELECT value FROM meta WHERE key = 'schema_version:llm'").fetchone()[0]
    assert kept == str(LLM_TABLES.version)


def test_a_file_of_0_2_0_with_every_workloads_tables_still_reads(llm_db: Path, tmp_path: Path) -> None:
    """An LLM's file as 0.2.0 wrote it, the sweep's tables made in it too, reads as it did, and is left as it was."""
    older = tmp_path / "0.2.0.db"
    older.write_bytes(llm_db.read_bytes())
    with sqlite3.connect(older) as db:
        db.executescript(SWEEP_TABLES.schema)
    before = older.read_bytes()
    assert registered(older).name == "llm"
    with LlmStore(older, create=False) as store:
        assert len(store.llm_trials()) > 0
    assert older.read_bytes() == before


def test_an_older_llms_file_upgraded_by_another_workload_still_upgrades_the_llms_tables(llm_db: Path,
                                                                                        tmp_path: Path) -> None:
    """A v19 LLM's file opened to write by a store without the LLM's tables (a sweep's command, before it refuses
    the file) goes to the current results schema; its LLM tables, left at v19 there, are upgraded from v19 when the
    LLM's store opens it, to read and to write."""
    older = tmp_path / "v19.db"
    older.write_bytes(llm_db.read_bytes())
    with sqlite3.connect(older) as db:  # as ov-tuner wrote it before the prefix cache's hits were counted
        for column in ("cached_tokens", "window_cached_tokens"):
            db.execute(f"ALTER TABLE llm_trials DROP COLUMN {column}")
        rewind(db, 19)
    ResultStore(older).close()
    with sqlite3.connect(older) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        columns = {row[1] for row in db.execute("PRAGMA table_info(llm_trials)")}
    assert meta["schema_version"] == str(RESULTS_SCHEMA_VERSION) and meta["tables_from"] == "19"
    assert "schema_version:llm" not in meta and "cached_tokens" not in columns
    with LlmStore(older, create=False) as store:
        trials = store.llm_trials()
    assert trials and all(t.cached_tokens == 0 for t in trials)
    with LlmStore(older) as store:
        assert len(store.llm_trials()) == len(trials)
    with sqlite3.connect(older) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version:llm'").fetchone()[0] == str(
            LLM_TABLES.version)


def test_a_workloads_tables_newer_than_this_ov_tuner_are_one_line(llm_db: Path, tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    newer.write_bytes(llm_db.read_bytes())
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version:llm'", (str(LLM_TABLES.version + 1),))
    assert_one_line(ov_tuner("show", str(newer)), f"has llm tables of v{LLM_TABLES.version + 1}; this ov-tuner reads "
                                                  f"up to v{LLM_TABLES.version}")


def test_a_file_of_a_workload_not_installed_is_one_line(swept_db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(swept_db.read_bytes())
    with sqlite3.connect(other) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'workload'",
                   (json.dumps({"name": "whisper", "whose": "a speech model's"}),))
    done = CliRunner().invoke(app, ["show", str(other)])
    assert done.exit_code == 2
    assert done.stderr.strip() == (f"error: {other} is a speech model's results file, written by the workload "
                                   "whisper, which is not installed here: install the package that provides it")


def test_a_workload_claims_only_its_own_files(swept_db: Path) -> None:
    with ResultStore(swept_db) as store, pytest.raises(Exception, match="is a sweep's results file"):
        env = store.environment()
        assert env is not None
        store.claim(env, Writer("llm", "an LLM's"))


@pytest.mark.parametrize("command", ["report", "compare"])
def test_files_of_two_kinds_are_one_line_naming_the_odd_one(command: str, swept_db: Path, llm_db: Path,
                                                            tmp_path: Path) -> None:
    done = CliRunner().invoke(app, [command, str(swept_db), str(llm_db), "--out-dir", str(tmp_path / "out")])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.strip() == (f"error: {command} reads files of one kind: {swept_db} is a sweep's, {llm_db} "
                                   "(an LLM's) not; give files of one workload")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_recommend_refuses_a_flag_the_files_answer_does_not_read(llm_db: Path, swept_db: Path) -> None:
    """The sweep's answer reads every narrowing flag; an LLM's reads none (it names none in Registration.asks), so one
    given is one line, not left unread."""
    assert registry()["sweep"].asks == ASKABLE and registry()["llm"].asks == ()
    assert_one_line(ov_tuner("recommend", str(llm_db), "--max-latency", "5", "--percentile", "99"),
                    "an LLM's answer is not narrowed by --max-latency or --percentile (it is answered as it was "
                    "tuned): leave it out")
    narrowed = ov_tuner("recommend", str(swept_db), "--max-latency", "1000", "--percentile", "99", "--device", "CPU")
    assert narrowed.returncode == 0, narrowed.stderr


def test_two_llm_files_are_compared_not_reported_together(llm_db: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["report", str(llm_db), str(llm_db), "--out-dir", str(tmp_path / "out")])
    assert done.exit_code == 2
    assert done.stderr.strip() == (f"error: {llm_db} is an LLM's results file, reported one at a time: give one file "
                                   "(compare sets several side by side)")
    compared = CliRunner().invoke(app, ["compare", str(llm_db), str(llm_db)])
    assert compared.exit_code == 0 and "file 2 deploys" in compared.stdout


def test_the_results_help_names_the_workloads_that_export_and_says_so_where_none_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The help is built while the command line is: where no installed workload exports (ov-tuner's own sweep did not
    load), it says so instead of failing to build."""
    import ov_tuner.cli.results as results

    assert results._written_by(exporting=True) == "`ov-tuner sweep`"
    assert results._written_by() == "`ov-tuner llm`, `pipeline` or `sweep`"
    without_sweep = {n: r for n, r in registry().items() if n != "sweep"}
    monkeypatch.setattr(results, "registry", lambda: without_sweep)
    assert results._written_by(exporting=True) == "a workload's command (none installed here)"
    assert results._written_by() == "`ov-tuner llm` or `pipeline`"
