"""What every `pathwise` sub-command shares: one-line errors with exit code 2, and the options
that mean the same thing everywhere (declared once here, so their help never drifts)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer


def fail(exc: BaseException | str) -> NoReturn:
    """One line on stderr, `error: ...`, and exit code 2; never a traceback."""
    typer.echo(f"error: {' '.join(str(exc).split())}", err=True)
    raise typer.Exit(2)


def refuse_results(results: Path | None, overwrite: bool) -> None:
    """Fail before any work when the --results files exist and --overwrite was not given."""
    from common.outputs import OutputExistsError
    from common.results import refuse_existing_results

    if results is not None:
        try:
            refuse_existing_results(results, overwrite)
        except OutputExistsError as exc:
            fail(exc)


Endpoint = Annotated[
    str | None,
    typer.Option(
        help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (`pathwise serve`, any "
        "vLLM server, a hosted API).",
    ),
]
ApiKey = Annotated[
    str | None,
    typer.Option(
        envvar="OPENAI_API_KEY",
        show_default=False,
        help="API key sent as a Bearer token to --endpoint (default: $OPENAI_API_KEY); never "
        "printed or logged.",
    ),
]
ServedModel = Annotated[
    str | None, typer.Option("--model", help="Served model or LoRA adapter name at --endpoint.")
]
Vision = Annotated[
    bool | None,
    typer.Option(
        "--vision/--text-only",
        show_default=False,
        help="Send the screenshot as an image part, or not (default: as the served model's "
        "config says, else the dataset's manifest).",
    ),
]
GroundedSchema = Annotated[
    bool,
    typer.Option(
        "--grounded-schema/--global-schema",
        help="Decode each step with its grounded schema (target among the visible labels, typed "
        "text the command's payload) instead of the global Action AST schema.",
    ),
]
MiddleFormat = Annotated[
    str | None,
    typer.Option(
        show_default=False,
        help="The served student's interface format: paper (the default; offline: the "
        "dataset's), text-first or echo (text-first label lines, the answer names the "
        "target's text).",
    ),
]
Workers = Annotated[int, typer.Option(min=1, help="Parallel browsers.")]
StepCap = Annotated[int, typer.Option(min=1, help="Browser steps per rollout (Table 18).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object only.")]
NewOut = Annotated[Path, typer.Option(help="New output folder (never overwritten).")]
Results = Annotated[
    Path | None,
    typer.Option(
        help="Also write the result files RESULTS.json and RESULTS.md with the machine they were "
        "measured on, e.g. benchmarks/results/NAME (never overwritten unless --overwrite).",
    ),
]
# One name for "replace what exists" across commands; --overwrite, the older name, still works.
Force = Annotated[
    bool, typer.Option("--force", "--overwrite", help="Replace existing output files or folders.")
]
Overwrite = Annotated[
    bool, typer.Option("--force", "--overwrite", help="Replace existing --results files.")
]
