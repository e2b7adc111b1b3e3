"""The one registry of results files (ov_tuner.registry): every workload's file kind registered once with every part
the commands ask of it, each file read as the kind it is, and files of two kinds given together refused in one line
naming the odd ones. (A pipeline's file: tests/test_pipeline_job.py, which has one.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.present.deploy import FORMS, Builder
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.present.envelope import AnswerKind
from ov_tuner.registry import REGISTRY, Registration, registered
from ov_tuner.store.results import ResultStore
from ov_tuner.store.tables import FileKind

# The parts a kind may go without: each has a one-line refusal in the command that asks for it.
OPTIONAL = ("compare", "export")


def missing_parts(registry: dict[FileKind, Registration]) -> list[str]:
    """`kind: part` for each file kind with no registration, registered under another kind's key, or without a part
    every command needs; and each answer kind with no deploy-form field or no JSON form."""
    found = [f"{kind.value}: unregistered" for kind in FileKind if kind not in registry]
    for kind, registration in registry.items():
        found += [f"{kind.value}: registered as {registration.kind.value}"] if registration.kind is not kind else []
        found += [f"{kind.value}: {part.name}" for part in dataclasses.fields(registration)
                  if part.name not in OPTIONAL and getattr(registration, part.name) is None]
        answer_kind = registration.answer_kind
        if answer_kind.value not in {f.name for f in dataclasses.fields(Builder)}:
            found.append(f"{kind.value}: no Builder field {answer_kind.value}")
        elif not FORMS[DeployFormat.JSON].serves(answer_kind):
            found.append(f"{kind.value}: no json form")
    return found


def test_every_file_kind_is_registered_with_every_part() -> None:
    assert missing_parts(REGISTRY) == []
    assert {r.answer_kind for r in REGISTRY.values()} == set(AnswerKind)


def test_the_completeness_check_sees_a_missing_kind_and_a_missing_part() -> None:
    llm = REGISTRY[FileKind.LLM]
    shown = dataclasses.replace(llm, show=None)  # type: ignore[arg-type]
    assert missing_parts({k: r for k, r in REGISTRY.items() if k is not FileKind.LLM}) == ["llm: unregistered"]
    assert missing_parts({**REGISTRY, FileKind.LLM: shown}) == ["llm: show"]
    assert missing_parts({**REGISTRY, FileKind.LLM: REGISTRY[FileKind.SWEEP]}) == ["llm: registered as points"]


def test_each_file_is_read_as_the_kind_it_is(swept_db: Path, llm_db: Path, tmp_path: Path) -> None:
    """A sweep's file and an LLM's by the job each holds; a file that holds no job yet as a sweep's, whose reader
    says what is missing."""
    assert registered(swept_db).kind is FileKind.SWEEP
    assert registered(llm_db).kind is FileKind.LLM
    empty = tmp_path / "empty.db"
    with ResultStore(empty):
        pass
    assert registered(empty).kind is FileKind.SWEEP


@pytest.mark.parametrize("command", ["report", "compare"])
def test_files_of_two_kinds_are_one_line_naming_the_odd_one(command: str, swept_db: Path, llm_db: Path,
                                                            tmp_path: Path) -> None:
    done = CliRunner().invoke(app, [command, str(swept_db), str(llm_db), "--out-dir", str(tmp_path / "out")])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.strip() == (f"error: {command} reads files of one kind: {swept_db} is a sweep's, {llm_db} "
                                   "(an LLM's) not; give files of one workload")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_two_llm_files_are_compared_not_reported_together(llm_db: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["report", str(llm_db), str(llm_db), "--out-dir", str(tmp_path / "out")])
    assert done.exit_code == 2
    assert done.stderr.strip() == (f"error: {llm_db} is an LLM's results file, reported one at a time: give one file "
                                   "(compare sets several side by side)")
    compared = CliRunner().invoke(app, ["compare", str(llm_db), str(llm_db)])
    assert compared.exit_code == 0 and "file 2 deploys" in compared.stdout
