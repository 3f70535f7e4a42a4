"""`pathwise bench planner` (synthetic catalogs) and `pathwise bench stolaf` (the real one).

With --results each writes its benchmark's result files (benchmarks/results/planner.*,
stolaf.*); benchmarks/README.md has the commands that made the committed ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from common.cli import Overwrite, Results, fail, refuse_results


def register_bench(bench_app: typer.Typer) -> None:
    @bench_app.command("planner")
    def bench_planner(
        pairs: int = typer.Option(50, help="(program, profile) pairs"),
        seed: int = typer.Option(0),
        courses: list[int] = typer.Option(
            None, help="courses in the synthetic catalog (default 300; repeatable with --seeds)"
        ),
        seeds: str = typer.Option(
            None,
            help="a seed sweep, A-B or A,B,C: the ladder on --pairs requests of every seed's "
            "catalog at every --courses size (--rows: a folder of checkpoints)",
        ),
        budget: float = typer.Option(
            None, help="deterministic seconds per ladder solve (default 60)"
        ),
        rows: Path = typer.Option(
            None, help="JSONL checkpoint of finished pairs; rerun with it to resume"
        ),
        method: list[str] = typer.Option(
            None, help="planners: ladder, weighted_sum, greedy (repeatable; default all three)"
        ),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        results: Results = None,
        overwrite: Overwrite = False,
    ) -> None:
        """Ladder vs single weighted sum vs greedy topological scheduler, same pairs; each
        request's model size is reported, every infeasible verdict is checked by the unpruned
        model, and the command fails (exit 1) when a ladder request's model exceeds
        planner/config/solver.yaml `size_limit`. With --seeds: the ladder over many catalogs
        (planner/bench_sweep.py)."""
        from common.results import write_results
        from planner.bench import METHODS, render_markdown, run_bench

        _known_methods(method, METHODS)
        sizes = courses or [300]
        if seeds is not None:
            _sweep(seeds, sizes, pairs, budget, rows, method, as_json, results, overwrite)
            return
        if len(sizes) > 1:
            fail("--courses: give one size, or --seeds A-B to sweep several")
        refuse_results(results, overwrite)
        try:
            summary = run_bench(
                pairs=pairs,
                seed=seed,
                n_courses=sizes[0],
                budget=budget,
                rows_path=rows,
                methods=tuple(m for m in METHODS if m in method) if method else METHODS,
            )
        except (ValueError, OSError) as exc:
            fail(exc)
        if results is not None:
            md = "# Planner benchmark\n\n" + render_markdown(summary)
            write_results(results, summary, md, overwrite=overwrite)
        if as_json:
            typer.echo(json.dumps(summary["summary"]))
        else:
            typer.echo(render_markdown(summary))
        _assert_size(summary)

    @bench_app.command("stolaf")
    def bench_stolaf(
        docs: Path = typer.Option(Path("data/catalogs/stolaf"), help="the St. Olaf documents"),
        terms: Path = typer.Option(
            None, help="folder of terms-YYYYS.json; verify also checks sections there"
        ),
        program: list[str] = typer.Option(None, help="only these programs (repeatable)"),
        profile: list[str] = typer.Option(
            None, help="only these profiles: light, heavy, interest (repeatable)"
        ),
        budget: float = typer.Option(
            None, help="deterministic seconds per ladder solve (default 60)"
        ),
        top_k: int = typer.Option(1, help="plans per request"),
        method: list[str] = typer.Option(
            None, help="planners: ladder (default), weighted_sum, greedy (repeatable)"
        ),
        rows: Path = typer.Option(None, help="JSONL checkpoint; rerun with it to resume"),
        as_json: bool = typer.Option(
            False, "--json", help="print the counts as one JSON line, last"
        ),
        results: Results = None,
        overwrite: Overwrite = False,
    ) -> None:
        """Every St. Olaf program with every profile (planner/config/stolaf_profiles.yaml),
        planned and verified as `pathwise plan` and `pathwise plan verify` do."""
        from common.results import write_results
        from planner.bench_stolaf import METHODS, render_markdown, run_stolaf
        from planner.documents import DocumentError
        from planner.term_files import TermFileError

        _known_methods(method, METHODS)
        refuse_results(results, overwrite)
        try:
            result = run_stolaf(
                docs,
                terms,
                program or None,
                profile or None,
                budget,
                top_k,
                methods=tuple(m for m in METHODS if m in method) if method else ("ladder",),
                rows_path=rows,
                progress=not as_json,
            )
        except (DocumentError, TermFileError, ValueError, OSError) as exc:
            fail(exc)
        if results is not None:
            write_results(results, result, render_markdown(result), overwrite=overwrite)
        typer.echo(render_markdown(result))
        if as_json:
            typer.echo(json.dumps({"programs": result["programs"]}))


def _sweep(
    seeds: str,
    sizes: list[int],
    pairs: int,
    budget: float | None,
    rows: Path | None,
    method: list[str] | None,
    as_json: bool,
    results: Path | None,
    overwrite: bool,
) -> None:
    """`bench planner --seeds`: the ladder over every seed's catalog at every size."""
    from common.results import write_results
    from planner.bench_sweep import parse_seeds, render_markdown, run_sweep

    if method and set(method) != {"ladder"}:
        fail("--seeds runs the ladder only; drop --method or pass --method ladder")
    if rows is not None and rows.exists() and not rows.is_dir():
        fail(f"--rows {rows}: with --seeds it is a folder of checkpoints, not a file")
    try:
        chosen = parse_seeds(seeds)
    except ValueError as exc:
        fail(exc)
    refuse_results(results, overwrite)
    try:
        result = run_sweep(chosen, sizes, pairs, budget, rows, progress=not as_json)
    except (ValueError, OSError) as exc:
        fail(exc)
    if results is not None:
        write_results(results, result, render_markdown(result), overwrite=overwrite)
    if as_json:
        typer.echo(json.dumps(result["summary"]))
    else:
        typer.echo(render_markdown(result))
    _assert_size(result)


def _assert_size(result: dict) -> None:
    """Exit 1, naming each request, when a ladder model exceeds the committed size limit."""
    from planner.bench import size_check

    too_big = size_check(result)
    for line in too_big:
        typer.echo(f"model size limit exceeded: {line}", err=True)
    if too_big:
        raise typer.Exit(1)


def _known_methods(method: list[str] | None, known: tuple[str, ...]) -> None:
    unknown = sorted(set(method or ()) - set(known))
    if unknown:
        raise typer.BadParameter(f"unknown planner(s): {', '.join(unknown)}", param_hint="--method")
