"""`pathwise audit create | serve | report` (WebRider Appendix G)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from common.cli import fail

audit_app = typer.Typer(
    help="Blinded paired human audit (WebRider Appendix G): create a study from two arms' runs, "
    "serve it to raters on 127.0.0.1, report PCS, HCP, kappa and CGS agreement.",
    no_args_is_help=True,
)


@audit_app.command("create")
def create(
    arms: Annotated[
        tuple[Path, Path],
        typer.Option(help="Run folders of arm A and arm B (same contracts), e.g. student teacher."),
    ],
    out: Annotated[Path, typer.Option(help="New study database (never overwritten).")],
    pairs: Annotated[int | None, typer.Option(min=1, help="Pairs in all (audit.yaml: 80).")] = None,
    anchors: Annotated[
        int | None, typer.Option(min=0, help="Pairs every rater labels (audit.yaml: 20).")
    ] = None,
    raters: Annotated[int | None, typer.Option(min=2, help="Rater places (audit.yaml: 6).")] = None,
    seed: Annotated[int | None, typer.Option(help="Design seed (audit.yaml: 20260612).")] = None,
    contracts: Annotated[
        list[Path] | None,
        typer.Option(help="Contract file(s) for the full contract text; repeatable."),
    ] = None,
    gate_labels: Annotated[
        bool,
        typer.Option(
            "--gate-labels/--no-gate-labels",
            help="Also ask raters for the five CGS gates per rollout (Table 32 calibration).",
        ),
    ] = False,
    config: Annotated[Path | None, typer.Option(help="Settings YAML (default audit.yaml).")] = None,
) -> None:
    """Draw N pairs of the same contract from two arms (K shared anchors, the rest split two
    raters each), randomize left/right per pair and rater with the seed, hide run names, and
    copy what raters see (steps, screenshots, contract) into one SQLite file."""
    from common.loading import LoadError
    from evals.audit.config import DEFAULTS, load_settings
    from evals.audit.create import create_study
    from evals.audit.design import DesignError
    from evals.audit.store import StudyError

    try:
        settings = load_settings(
            config or DEFAULTS, pairs=pairs, anchors=anchors, raters=raters, seed=seed
        )
    except LoadError as e:
        fail(e)
    for d in arms:
        if not d.is_dir():
            fail(FileNotFoundError(f"{d}: no such run folder"))
    try:
        s = create_study(arms[0], arms[1], out, settings, contracts or [], gate_labels)
    except (StudyError, DesignError, OSError) as e:
        fail(e)
    typer.echo(
        f"study {s.path}: {s.pairs} pairs ({s.anchors} anchor{'' if s.anchors == 1 else 's'}) "
        f"of {s.shared_contracts} shared "
        f"contracts, {s.raters} raters, {s.steps} steps, {s.screenshots} screenshots"
    )


@audit_app.command("serve")
def serve(
    study: Annotated[Path, typer.Argument(help="Study database from `audit create`.")],
    port: Annotated[int, typer.Option(min=0, help="Port on 127.0.0.1 (0: a free one).")] = 0,
) -> None:
    """Serve the rating pages on 127.0.0.1: sign in with a name, label each step yes / no /
    cannot-judge and each pair left / right / tie / neither / cannot-judge. Every label is
    saved at once; signing in again resumes. Ctrl-C stops the server."""
    from envs.webapp import AppServer
    from evals.audit.app import create_app
    from evals.audit.store import StudyError

    try:
        app = create_app(study)
    except StudyError as e:
        fail(e)
    server = AppServer(app, port=port).start()
    typer.echo(f"audit for {study} on {server.url}  (Ctrl-C to stop)")
    server.serve_forever()


@audit_app.command("report")
def report(
    study: Annotated[Path, typer.Argument(help="Study database.")],
    out: Annotated[
        Path | None, typer.Option(help="New folder for report.md and report.json.")
    ] = None,
) -> None:
    """PCS per rollout and pooled (Wilson), Wilcoxon signed-rank on paired PCS differences,
    net HCP and the exact sign test, Fleiss' kappa on anchors, automatic gates vs human labels."""
    from common.outputs import OutputExistsError, atomic_dir
    from evals.audit.report import build_report, write_json
    from evals.audit.report_md import to_markdown
    from evals.audit.store import StudyError

    try:
        rep = build_report(study)
        md = to_markdown(rep)
        if out is not None:
            with atomic_dir(out) as tmp:
                (tmp / "report.md").write_text(md, encoding="utf-8")
                write_json(rep, tmp / "report.json")
    except (StudyError, OutputExistsError) as e:
        fail(e)
    typer.echo(md)
