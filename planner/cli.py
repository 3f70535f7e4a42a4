"""`pathwise plan`, `pathwise plan verify`, `pathwise plan schema` (benchmarks: cli_bench.py).

Every user error (a malformed or missing file, a field of the wrong type, a name the catalog
lacks) is one line on stderr naming the file and the field, and exit code 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from common.cli import Force, fail
from common.outputs import OutputExistsError, atomic_file, refuse_existing


def _write(path: Path, data: dict, force: bool) -> None:
    try:
        with atomic_file(path, force, "--force") as tmp:
            tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    except OutputExistsError as exc:
        fail(exc)
    except OSError as exc:
        fail(f"{path}: cannot write: {exc.strerror or exc}")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    plan_app = typer.Typer(help="Exact degree planning over the three catalog documents.")
    app.add_typer(plan_app, name="plan")

    @plan_app.callback(invoke_without_command=True)
    def plan(
        ctx: typer.Context,
        docs: Path = typer.Option(None, help="directory with courses.json, programs.json, ge.json"),
        request: Path = typer.Option(None, help="request JSON file (fields: docs/planner.md)"),
        text: str = typer.Option(None, help="the request in words, instead of --request"),
        out: Path = typer.Option(
            Path("plan.json"), help="where to write the plans as JSON (never overwritten)"
        ),
        picture: Path = typer.Option(
            None, help="plan picture (terms as columns); default: --out with .svg"
        ),
        top_k: int = typer.Option(None, help="number of plans (config default 3)"),
        budget: float = typer.Option(
            None, help="deterministic seconds for one ladder solve (default 60)"
        ),
        workers: int = typer.Option(None, help="CP-SAT workers (default 1)"),
        start_term: str = typer.Option(None, help="first term, e.g. 'fall 2014' or 20141"),
        acknowledge: list[str] = typer.Option(
            None,
            help="a policy that holds for you: its id, kind:background (placements, high-school "
            "work) or own-restrictions (your programs' courses open to their majors); repeatable",
        ),
        consent: list[str] = typer.Option(None, help="a course you have consent for; repeatable"),
        interest_model: str = typer.Option(
            None,
            help="sentence-transformers model (local directory or installed name) for the "
            "embedding direct interest I0; default: utility.yaml's interest block (lexical)",
        ),
        force: Force = False,
    ) -> None:
        """Plan a request: a table per term with why each course is there, JSON, a picture;
        or, when no plan exists, which requirements and limits conflict and why."""
        if ctx.invoked_subcommand is not None:
            return
        if docs is None or (request is None and text is None):
            typer.echo(ctx.get_help())
            raise typer.Exit(2)
        from common.embedder import EmbedderError
        from planner.documents import DocumentError, load_docs
        from planner.hypergraph import compile_graph
        from planner.picture import draw_plan
        from planner.present import render
        from planner.profile import RequestError, load_request
        from planner.run import run_request
        from planner.solver_config import SolverConfig
        from planner.text_request import read_text
        from planner.utility import course_utility

        if budget is not None and not (math.isfinite(budget) and budget > 0):
            fail(f"--budget {budget}: seconds must be a positive finite number")
        if top_k is not None and top_k < 1:
            fail(f"--top-k {top_k}: ask for at least one plan")
        if workers is not None and workers < 1:
            fail(f"--workers {workers}: at least one CP-SAT worker")
        pic_path = picture or out.with_suffix(".svg")
        try:
            for path in (out, pic_path):  # refuse before any work
                refuse_existing(path, force, "--force")
        except OutputExistsError as exc:
            fail(exc)
        try:
            catalog = load_docs(docs)
        except DocumentError as exc:
            fail(exc)
        graph = compile_graph(catalog)
        try:
            req = load_request(request) if request else None
        except RequestError as exc:
            fail(exc)
        if req is None:
            reading = read_text(text, graph)
            req = reading.request
            for words, meaning in reading.readings:
                typer.echo(f"read '{words}' as {meaning}")
            if reading.question or req.unresolved:
                msg = reading.question or (
                    "Could not resolve: " + ", ".join(req.unresolved) + ". Please name them "
                    "exactly (a program's name or id, a course id)."
                )
                typer.echo(msg)
                unresolved = {"request": req.model_dump(), "status": "unresolved", "question": msg}
                _write(out, unresolved, force)
                raise typer.Exit(3)
        patch = {
            k: v
            for k, v in {
                "start_term": start_term,
                "acknowledged": [*req.acknowledged, *(acknowledge or [])] if acknowledge else None,
                "consents": [*req.consents, *(consent or [])] if consent else None,
            }.items()
            if v is not None
        }
        req = req.model_copy(update=patch)
        try:
            # Fail before any solve when the interest model cannot load; the embeddings this
            # computes stay cached for the solves below.
            course_utility(graph, req, interest_model=interest_model)
        except EmbedderError as exc:
            fail(exc)
        common = {"time_budget_s": budget, "workers": workers, "interest_model": interest_model}
        cfg = SolverConfig.load(top_k=top_k, **common)
        if req.hypotheses:
            from planner.clarify import clarify

            c = clarify(graph, req, SolverConfig.load(**common))
            if c.question:
                typer.echo(c.question)
                _write(
                    out,
                    {
                        "request": req.model_dump(),
                        "status": "question",
                        "question": c.question,
                        "dimension": c.dimension,
                    },
                    force,
                )
                raise typer.Exit(4)
            # Invariant optimum: any hypothesis gives the same plan, so plan under the first.
            hyp: dict = {}
            for dim in sorted(req.hypotheses):
                hyp.update(req.hypotheses[dim][sorted(req.hypotheses[dim])[0]])
            req = req.model_copy(update={**hyp, "hypotheses": {}})
        try:
            result = run_request(graph, req, cfg)
        except RequestError as exc:
            fail(exc)
        if result["issues"]:
            shown = "; ".join(result["issues"][:5])
            more = len(result["issues"]) - 5
            typer.echo(
                f"catalog issues ({len(result['issues'])}): {shown}"
                + (f"; ... {more} more in the JSON" if more > 0 else ""),
                err=True,
            )
        if result["status"] != "ok":
            typer.echo(f"No plan ({result['status']}).")
            for line in result["explanation"]:
                typer.echo(line)
        typer.echo(render(result))
        _write(out, result, force)
        typer.echo(f"\nwrote {out}")
        if result["plans"]:
            pic = draw_plan(result, pic_path)
            if pic:
                typer.echo(f"wrote {pic}")

    @plan_app.command("verify")
    def verify(
        docs: Path = typer.Option(..., help="documents to verify against (e.g. a gold graph)"),
        plan: Path = typer.Option(..., help="plan JSON written by `pathwise plan`"),
        rank: int = typer.Option(0, min=0, help="verify only this plan rank (0: all)"),
        terms: Path = typer.Option(
            None,
            help="folder of observed term files (terms-YYYYS.json): also check that each course "
            "has a section in its term there, independently of the documents",
        ),
    ) -> None:
        """Check every constraint of a plan against a catalog; exit 1 on any violation."""
        from planner.documents import DocumentError, load_docs
        from planner.run import PlanFileError, read_plan_file, verify_plans
        from planner.term_files import TermFileError, read_sections

        try:
            req, plans = read_plan_file(plan)
            catalog = load_docs(docs)
            wanted = {c.id for c in catalog.courses.calendar} or None
            sections = read_sections(terms, wanted) if terms else None
        except (PlanFileError, DocumentError, TermFileError) as exc:
            fail(exc)
        try:
            checked = verify_plans(catalog, req, plans, sections, rank)
        except PlanFileError as exc:
            fail(f"{plan}: {exc}")
        bad = 0
        for r, vs in checked:
            typer.echo(f"plan {r}: {'OK' if not vs else f'{len(vs)} violation(s)'}")
            for v in vs:
                typer.echo(f"  [{v.kind}] {v.message}")
            bad += bool(vs)
        raise typer.Exit(1 if bad else 0)

    @plan_app.command("schema")
    def schema(
        out: Path = typer.Option(..., help="output directory (its schema files never overwritten)"),
        force: Force = False,
    ) -> None:
        """Write the JSON Schema of courses.json, programs.json and ge.json into --out."""
        from planner.documents import json_schemas

        schemas = {
            out / name.replace(".json", ".schema.json"): sch for name, sch in json_schemas().items()
        }
        try:
            for path in schemas:
                refuse_existing(path, force, "--force")
        except OutputExistsError as exc:
            fail(exc)
        for path, sch in schemas.items():
            _write(path, sch, force)
            typer.echo(f"wrote {path}")

    from planner.cli_bench import register_bench

    register_bench(bench_app)
