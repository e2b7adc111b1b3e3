"""An error below the command line names the user's input, not its flag: a notebook reads the input in words, the
CLI the flag the user typed (ov_tuner/commandline/inputs.py), and a pipeline file's key stays that key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ov_tuner.commandline.inputs import FLAGS, OWN_FLAGS, said
from ov_tuner.devices.precision_names import parse_precisions
from ov_tuner.errors import BadInputError, Given, Input, OutputError, OwnInput, own_inputs
from ov_tuner.model.inputs import load_images
from ov_tuner.store.destinations import output_folder
from ov_tuner.workloads.llm.schema import KV_PRECISION_INPUT


def test_every_input_has_one_flag_of_its_own() -> None:
    """ov-tuner's inputs, and each workload's own once its command is on the command line."""
    import ov_tuner.cli  # noqa: F401  (every workload's commands, which give their inputs' flags)

    assert set(FLAGS) == set(Input) and set(OWN_FLAGS) == set(own_inputs()) and KV_PRECISION_INPUT in OWN_FLAGS
    flags = [*FLAGS.values(), *OWN_FLAGS.values()]
    assert len(set(flags)) == len(flags)


def test_a_workloads_own_input_is_named_in_words_and_as_its_flag() -> None:
    error = BadInputError(f"{KV_PRECISION_INPUT} u2: give values the device takes")
    assert error.inputs == (KV_PRECISION_INPUT,)
    assert str(error) == "KV cache precisions u2: give values the device takes"
    assert said(error) == "--kv-precision u2: give values the device takes"
    with pytest.raises(ValueError, match="declared twice"):
        OwnInput("KV_PRECISION", "another input's words")


def test_a_library_error_names_the_input_in_words_and_the_cli_names_its_flag(tmp_path: Path) -> None:
    with pytest.raises(BadInputError) as missing:
        load_images(tmp_path / "photos")
    assert missing.value.inputs == (Input.IMAGES,)
    why = f"{tmp_path / 'photos'} is not a folder; give a folder of .png, .jpg or .bmp images"
    assert str(missing.value) == f"images: {why}" and said(missing.value) == f"--images: {why}"


def test_an_example_is_written_as_the_input_was_given() -> None:
    with pytest.raises(BadInputError) as flag:
        parse_precisions("fp64")
    assert said(flag.value).endswith("use e.g. --precision fp32,fp16")
    assert str(flag.value).endswith("use e.g. precision fp32,fp16")
    with pytest.raises(BadInputError) as key:
        parse_precisions("fp64", given=Given("p.toml [[stage]] 1 precision", "precision"))
    assert key.value.inputs == () and said(key.value) == str(key.value)
    assert str(key.value).startswith("p.toml [[stage]] 1 precision: 'fp64'")
    assert str(key.value).endswith('use e.g. precision = "fp32,fp16"')


def test_a_path_with_braces_and_a_flag_the_caller_names_are_said_as_given(tmp_path: Path) -> None:
    """A placeholder is not a brace: a path holding `{out}` is said as it is; the CLI's `-o` is passed through."""
    odd = tmp_path / "{out}"
    odd.write_text("a file")
    with pytest.raises(OutputError) as taken:
        output_folder(odd, Given("-o"))
    assert said(taken.value) == str(taken.value)
    assert said(taken.value).startswith(f"-o: {odd} is a file; give a folder")
