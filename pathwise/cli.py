"""The one `pathwise` command. Each package owns its sub-commands in its own `cli.py`;
this file only mounts them, so `pathwise --help` stays fast (heavy imports live inside
the commands)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="pathwise",
    help="Guarded web agents and exact planners: collect, export, train, serve, evaluate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# `pathwise bench ...` gathers the benchmark-style commands of several packages.
bench_app = typer.Typer(
    help="Run a benchmark and print its table (or --json).", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")


def _mount() -> None:
    # Each package owns its sub-commands; the imports stay inside so a broken optional
    # package cannot hide the others' --help.
    from agent_runtime import cli as runtime_cli
    from base_models import cli as models_cli
    from catalogbrowse import cli as catalog_cli
    from data_export import cli as export_cli
    from evals import cli as evals_cli
    from evals.catalog import cli as catalog_eval_cli
    from evals.odobot import cli as odobot_study_cli
    from odobot import cli as odobot_cli
    from pathwise.clause_model import cli as clause_model_cli
    from pathwise.demo import cli as demo_cli
    from pathwise.odobot_students import cli as students_cli
    from planner import cli as planner_cli
    from serving import cli as serving_cli
    from training import cli as training_cli

    runtime_cli.register(app, bench_app)
    planner_cli.register(app, bench_app)
    export_cli.register(app, bench_app)
    evals_cli.register(app, bench_app)
    serving_cli.register(app, bench_app)
    models_cli.register(app)
    training_cli.register(app)  # pathwise train
    demo_cli.register(app, bench_app)
    catalog_app = catalog_cli.register(app)  # pathwise catalog ...
    catalog_eval_cli.register(catalog_app)  # pathwise catalog eval
    clause_model_cli.register(catalog_app)  # pathwise catalog clause-model train
    catalog_eval_cli.register_bench(bench_app)  # pathwise bench catalog
    odobot_app = odobot_cli.register(app)  # pathwise odobot build | inspect
    odobot_study_cli.register(odobot_app)  # pathwise odobot run | demo
    students_cli.register(odobot_app)  # pathwise odobot train
    odobot_study_cli.register_bench(bench_app)  # pathwise bench odobot


_mount()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
