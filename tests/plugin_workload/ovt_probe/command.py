"""`ov-tuner probe`: the probe's command, added to ov-tuner's command line by its registration. Typer reads the
command's annotations, so they are names of this module, not strings."""

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.plugin import one_line_errors, out


def add_probe(app: typer.Typer) -> None:
    @app.command(name="probe")
    @one_line_errors
    def probe(model: Annotated[Path, typer.Argument(help="An OpenVINO model.")],
              results: Annotated[Path, typer.Option("--out", help="The results file.")],
              threads: Annotated[str, typer.Option(help="Numbers of inference threads, comma-separated.")] = "1,2",
              requests: Annotated[int, typer.Option(min=2, help="Timed requests at each.")] = 20) -> None:
        """One request's latency at each number of inference threads (a plug-in workload)."""
        from ovt_probe.probe import run_probe

        run_probe(model, results, [int(t) for t in threads.split(",")], requests)
        out.print(f"wrote {results}")
