"""`pathwise plan`, `pathwise plan verify` and `pathwise bench planner`."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def _print_plans(result: dict) -> None:
    for p in result["plans"]:
        flag = "certified" if p["certified"] else f"UNCERTIFIED (stage {p['uncertified_stage']})"
        typer.echo(
            f"\nPlan {p['rank']}: {flag}; {p['terms_used']} terms, max load "
            f"{p['max_load']:g}, utility {p['utility']:.3f}, {p['solve_s']:.2f} s"
        )
        typer.echo(f"{'term':>4}  {'season':<8} {'units':>5}  courses")
        by: dict[int, list[dict]] = {}
        for c in p["courses"]:
            by.setdefault(c["term"], []).append(c)
        for t in sorted(by):
            cs = by[t]
            typer.echo(
                f"{t:>4}  {cs[0]['season']:<8} {sum(c['units'] for c in cs):>5g}  "
                + ", ".join(c["course"] for c in cs)
            )


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    plan_app = typer.Typer(help="Exact degree planning over the three catalog documents.")
    app.add_typer(plan_app, name="plan")

    @plan_app.callback(invoke_without_command=True)
    def plan(
        ctx: typer.Context,
        docs: Path = typer.Option(None, help="directory with courses.json, programs.json, ge.json"),
        request: Path = typer.Option(None, help="request JSON file"),
        text: str = typer.Option(None, help="natural-language request instead of --request"),
        out: Path = typer.Option(Path("plan.json"), help="where to write the plans as JSON"),
        top_k: int = typer.Option(None, help="number of plans (config default 3)"),
        budget: float = typer.Option(None, help="seconds for one ladder solve (default 60)"),
        workers: int = typer.Option(None, help="CP-SAT workers (default 1)"),
        interest_model: str = typer.Option(
            None,
            help="sentence-transformers model (local directory or installed name) for the "
            "embedding direct interest I0; default: utility.yaml's interest block (lexical)",
        ),
    ) -> None:
        """Plan a request: prints a term-by-term table and writes JSON."""
        if ctx.invoked_subcommand is not None:
            return
        if docs is None or (request is None and text is None):
            typer.echo(ctx.get_help())
            raise typer.Exit(2)
        from planner.documents import DocumentError, load_docs
        from planner.embedding import InterestModelError
        from planner.hypergraph import compile_graph
        from planner.profile import load_request, parse_text
        from planner.solve import SolverConfig, plan_request
        from planner.utility import course_utility

        try:
            catalog = load_docs(docs)
        except DocumentError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        graph = compile_graph(catalog)
        req = load_request(request) if request else parse_text(text, graph)
        if req.unresolved:
            typer.echo(
                "Could not resolve: "
                + ", ".join(req.unresolved)
                + ". Please name them exactly (program id or course id)."
            )
            out.write_text(
                json.dumps(
                    {
                        "request": req.model_dump(),
                        "status": "unresolved",
                        "questions": req.unresolved,
                    },
                    indent=1,
                )
            )
            raise typer.Exit(3)
        try:
            # Fail before any solve when the interest model cannot load; the embeddings this
            # computes stay cached for the solves below.
            course_utility(graph, req, interest_model=interest_model)
        except InterestModelError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        common = {"time_budget_s": budget, "workers": workers, "interest_model": interest_model}
        cfg = SolverConfig.load(top_k=top_k, **common)
        if req.hypotheses:
            from planner.clarify import clarify

            c = clarify(graph, req, SolverConfig.load(**common))
            if c.question:
                typer.echo(c.question)
                out.write_text(
                    json.dumps(
                        {
                            "request": req.model_dump(),
                            "status": "question",
                            "question": c.question,
                            "dimension": c.dimension,
                        }
                    )
                )
                raise typer.Exit(4)
            # Invariant optimum: any hypothesis gives the same plan, so plan under the first.
            patch: dict = {}
            for dim in sorted(req.hypotheses):
                patch.update(req.hypotheses[dim][sorted(req.hypotheses[dim])[0]])
            req = req.model_copy(update={**patch, "hypotheses": {}})
        result = plan_request(graph, req, cfg).to_json()
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
        _print_plans(result)
        out.write_text(json.dumps({"request": req.model_dump(), **result}, indent=1))
        typer.echo(f"\nwrote {out}")

    @plan_app.command("verify")
    def verify(
        docs: Path = typer.Option(..., help="documents to verify against (e.g. a gold graph)"),
        plan: Path = typer.Option(..., help="plan JSON written by `pathwise plan`"),
        rank: int = typer.Option(0, help="verify only this plan rank (0: all)"),
    ) -> None:
        """Check every constraint of a plan against a catalog; exit 1 on any violation."""
        from planner.documents import load_docs
        from planner.profile import Request
        from planner.verify import verify_plan

        data = json.loads(plan.read_text())
        req = Request.model_validate(data["request"])
        catalog = load_docs(docs)
        bad = 0
        for p in data.get("plans", []):
            if rank and p["rank"] != rank:
                continue
            vs = verify_plan(catalog, [(c["course"], c["term"]) for c in p["courses"]], req)
            typer.echo(f"plan {p['rank']}: {'OK' if not vs else f'{len(vs)} violation(s)'}")
            for v in vs:
                typer.echo(f"  [{v.kind}] {v.message}")
            bad += bool(vs)
        raise typer.Exit(1 if bad else 0)

    @plan_app.command("schema")
    def schema(out: Path = typer.Option(Path("planner/schemas"), help="output directory")) -> None:
        """Write the JSON Schema of courses.json, programs.json and ge.json."""
        from planner.documents import json_schemas

        out.mkdir(parents=True, exist_ok=True)
        for name, sch in json_schemas().items():
            (out / name.replace(".json", ".schema.json")).write_text(json.dumps(sch, indent=1))
            typer.echo(f"wrote {out / name.replace('.json', '.schema.json')}")

    @bench_app.command("planner")
    def bench_planner(
        pairs: int = typer.Option(50, help="(program, profile) pairs"),
        seed: int = typer.Option(0),
        courses: int = typer.Option(300, help="courses in the synthetic catalog"),
        budget: float = typer.Option(None, help="seconds per ladder solve (default 60)"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    ) -> None:
        """Ladder vs single weighted sum vs greedy topological scheduler, same pairs."""
        from planner.bench import render_markdown, run_bench

        summary = run_bench(pairs=pairs, seed=seed, n_courses=courses, budget=budget)
        if as_json:
            typer.echo(json.dumps(summary["summary"]))
        else:
            typer.echo(render_markdown(summary))
