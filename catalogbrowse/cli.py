"""`pathwise catalog ...`: KnowPlan's CatalogBrowse end to end (snapshots, gate, agent, verify,
the prerequisite parser); `pathwise catalog eval` is mounted onto this group by evals/catalog.
Each command imports what it needs when it runs, so `--help` stays fast."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from common.cli import ApiKey, Endpoint
from common.cli import fail as _fail

app = typer.Typer(
    help="CatalogBrowse: frozen catalog snapshots, the agent, verify and eval.",
    no_args_is_help=True,
)
snapshot_app = typer.Typer(
    help="Write a frozen snapshot (site/ is served, gold/ never is).", no_args_is_help=True
)
app.add_typer(snapshot_app, name="snapshot")


def _check_out(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        _fail(f"{out} exists and is not empty; choose a new --out (nothing is overwritten)")


@snapshot_app.command("synth")
def snapshot_synth(
    family: str = typer.Option(..., help="courseleaf | acalog | api | pdf | custom"),
    seed: int = typer.Option(0, help="institution seed (same seed, same school)"),
    out: Path = typer.Option(..., help="output directory: OUT/site and OUT/gold"),
    masked: bool = typer.Option(
        False, help="masked-source track: hide a stratified 10% of index pages"
    ),
) -> None:
    """A seeded synthetic institution in one platform family, with its gold documents."""
    from envs.catalog.synth.build import build_synth

    _check_out(out)
    try:
        meta = build_synth(family, seed, out, masked)
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(
        f"{family} seed {seed} ({meta['track']}): {out / 'site'} (served), {out / 'gold'} "
        f"(gold; {len(meta['masked_pages'])} masked pages, {len(meta['masked_entities'])} masked "
        "entities)"
    )


@snapshot_app.command("stolaf")
def snapshot_stolaf(
    out: Path = typer.Option(..., help="output directory: OUT/site and OUT/gold"),
    src: Path = typer.Option(
        Path("../shared/data/catalogs"), help="folder with stolaf-courses/ (real records)"
    ),
    docs: Path = typer.Option(
        Path("data/catalogs/stolaf"), help="the converted St. Olaf documents (gold)"
    ),
    masked: bool = typer.Option(False, help="masked-source track"),
) -> None:
    """St. Olaf College rendered from the real course records and requirement files."""
    from envs.catalog.stolaf import build_stolaf
    from planner.documents import DocumentError

    _check_out(out)
    try:
        meta = build_stolaf(src, docs, out, masked)
    except (FileNotFoundError, DocumentError) as exc:
        _fail(str(exc))
    typer.echo(f"St. Olaf ({meta['track']}): {out / 'site'}, gold {out / 'gold'}")


@app.command("serve")
def serve(
    directory: Path = typer.Argument(..., help="a snapshot directory (the one with manifest.json)"),
    no_budget: bool = typer.Option(
        False, help="no page budget (for the exhaustive reference crawler)"
    ),
) -> None:
    """Serve a snapshot through its precommit gate on 127.0.0.1 (a free port) until Ctrl-C."""
    from envs.catalog.gate import Budgets
    from envs.catalog.server import serve as serve_snapshot
    from envs.catalog.snapshot import SnapshotError

    try:
        server, _gate = serve_snapshot(directory, Budgets(pages=None) if no_budget else None)
    except SnapshotError as exc:
        _fail(str(exc))
    server.start()
    typer.echo(
        f"serving {directory} at {server.url} (root {_gate.snapshot.manifest.root}); Ctrl-C stops"
    )
    server.serve_forever()


@app.command("browse")
def browse(
    source: str = typer.Argument(
        ..., help="gate URL (from `catalog serve`) or a snapshot directory"
    ),
    out: Path = typer.Option(..., help="run directory: three documents, receipts, certificate"),
    policy: str = typer.Option("catalogbrowse", help="catalogbrowse | bfs | exhaustive"),
    endpoint: str = typer.Option(
        None, help="clause model: OpenAI-compatible endpoint (vLLM, embedded)"
    ),
    served_name: str = typer.Option(None, help="clause model: served model name at --endpoint"),
    api_key: ApiKey = None,
    model_dir: Path = typer.Option(None, help="clause model: run this checkpoint in-process"),
    adapter: Path = typer.Option(None, help="clause model: LoRA adapter for --model-dir"),
) -> None:
    """Run CatalogBrowse (or a baseline) over a snapshot; progress shows pages opened."""
    from tqdm import tqdm

    from catalogbrowse.agent import browse as run_browse
    from envs.catalog.gate import Budgets
    from envs.catalog.server import serve as serve_snapshot
    from envs.catalog.snapshot import SnapshotError

    _check_out(out)
    model = None
    if endpoint or model_dir:
        from catalogbrowse.backend import clause_model
        from serving.client import EndpointAuthError

        try:
            model = clause_model(endpoint, served_name, model_dir, adapter, api_key)
        except (ValueError, OSError, EndpointAuthError) as exc:
            _fail(str(exc))
    bar = tqdm(desc=f"{policy} pages", unit="page")

    def tick(n: int) -> None:
        bar.update(n - bar.n)

    local = Path(source)
    if local.is_dir():
        try:
            server, _ = serve_snapshot(
                local, Budgets(pages=None) if policy == "exhaustive" else None
            )
        except SnapshotError as exc:
            _fail(str(exc))
        with server:
            result = run_browse(server.url, out, policy, model, progress=tick)
        cert = json.loads((out / "certificate.json").read_text())
        cert["snapshot_dir"] = str(local.resolve())
        (out / "certificate.json").write_text(json.dumps(cert, indent=1) + "\n")
    else:
        result = run_browse(source, out, policy, model, progress=tick)
    bar.close()
    typer.echo(
        f"{policy}: stopped by {result.stop} after {result.pages} pages, {result.model_calls} "
        "model "
        f"calls; certificate {'holds' if result.certificate['holds'] else 'does NOT hold'}; {out}"
    )


@app.command("verify")
def verify(
    run: Path = typer.Argument(..., help="a run directory from `catalog browse`"),
    snapshot: Path = typer.Option(None, help="the snapshot (default: the one the run recorded)"),
) -> None:
    """Recompute the closure certificate from the receipts and the snapshot; exit 1 on any gap."""
    from catalogbrowse.verify import verify_run
    from envs.catalog.snapshot import SnapshotError

    try:
        verdict = verify_run(run, snapshot)
    except SnapshotError as exc:
        _fail(str(exc))
    for gap in verdict.gaps:
        typer.echo(f"gap: {gap}")
    if not verdict.ok:
        typer.echo(f"{run}: certificate does NOT verify ({len(verdict.gaps)} gaps)")
        raise typer.Exit(1)
    typer.echo(f"{run}: certificate verifies ({verdict.certificate['summary']})")


def _subjects(path: Path | None) -> dict[str, str] | None:
    if path is None:
        return None
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        _fail(f"--subjects {path}: {exc}")
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        _fail(f"--subjects {path}: expected a JSON object of department name -> code")
    return table


def _answer(clause, by_model: list[str], left: list[str]) -> dict:
    ast = clause.prerequisite
    return {
        "ast": ast.model_dump(mode="json") if ast is not None else None,
        "unresolved": left,
        "by_model": by_model,
    }


def _unicode(text: str, where: str) -> str:
    """`text` if it is valid Unicode; else ValueError naming `where` and the first bad place (a
    lone surrogate from JSON's \\ud800, or an undecodable byte the shell passed through)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise ValueError(
            f"{where}: not valid text: {bad!r} at character {exc.start + 1} is a lone surrogate "
            "or an undecodable byte"
        ) from None
    return text


def _batch_line(raw: bytes, number: int, file: Path) -> str:
    """The text of one input line; ValueError naming the line when it is not {"text": str}."""
    where = f"{file} line {number}"
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at {exc.start + 1})"
        ) from None
    except ValueError as exc:
        raise ValueError(f"{where}: not JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise ValueError(f'{where}: expected an object with a string "text"')
    return _unicode(obj["text"], where)


@app.command("parse-prereq")
def parse_prereq(
    text: str = typer.Argument(None, help="one prerequisite string (or --batch FILE)"),
    batch: Path = typer.Option(
        None,
        help='JSON lines {"text": ...}; one answer line per input line, in order. A malformed '
        "line is answered with an error naming its number; the others are still answered.",
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help='one JSON object per string: {"ast": ..., "unresolved": [...], "by_model": [...]}',
    ),
    model: bool = typer.Option(
        False,
        "--model",
        help="type the spans the grammar cannot with the clause model: the trained model at "
        "runs/clause-model/model ($PATHWISE_CLAUSE_MODEL) unless --endpoint or --model-dir",
    ),
    endpoint: Endpoint = None,
    api_key: ApiKey = None,
    served_name: str = typer.Option(
        None, help="fallback: model name at --endpoint (default: the one it serves)"
    ),
    model_dir: Path = typer.Option(None, help="fallback: checkpoint run in-process"),
    adapter: Path = typer.Option(None, help="fallback: LoRA adapter for --model-dir"),
    layout: str = typer.Option(
        None, help="fallback: answer layout (default: the model card's; tree | keyed | prefix)"
    ),
    subjects: Path = typer.Option(
        None, help='department names to codes, JSON {"psychology": "PSYCH", ...}'
    ),
) -> None:
    """Prerequisite prose to its typed clause AST: the grammar first, the clause model
    (--model) only on the spans the grammar cannot type."""
    from catalogbrowse.clause_card import default_model_dir
    from catalogbrowse.emit import type_prose

    if (text is None) == (batch is None):
        _fail("give one prerequisite string or --batch FILE")
    table = _subjects(subjects)
    fb = None
    if model or endpoint or model_dir:
        from catalogbrowse.backend import clause_model
        from serving.client import EndpointAuthError

        try:
            cm = clause_model(
                endpoint, served_name, model_dir, adapter, api_key, layout, table,
                default_dir=default_model_dir(),
            )  # fmt: skip
        except (ValueError, OSError, EndpointAuthError) as exc:
            _fail(str(exc))
        seen: dict[str, object] = {}

        def fb(span: str):
            if span not in seen:
                seen[span] = cm(span).clause
            return seen[span]

    if batch is None:
        try:
            clause, by_model, left = type_prose(
                _unicode(text, "the prerequisite string"), fb, table
            )
        except (ValueError, RuntimeError) as exc:  # bad text, or the endpoint failed
            _fail(str(exc))
        if as_json:
            sys.stdout.write(json.dumps(_answer(clause, by_model, left)) + "\n")
            return
        ast = clause.prerequisite
        typer.echo(json.dumps(ast.model_dump(mode="json") if ast is not None else None, indent=1))
        if clause.recommended:
            typer.echo(f"recommended: {', '.join(clause.recommended)}")
        for s in by_model:
            typer.echo(f"typed by the model: {s!r}")
        for s in left:
            typer.echo(f"unresolved: {s!r}")
        return
    _run_batch(batch, fb, table)


def _run_batch(batch: Path, fb, table) -> None:
    from tqdm import tqdm

    from catalogbrowse.emit import type_prose

    try:
        # Bytes: a line that is not UTF-8 is that line's error, not the whole file's.
        lines = batch.read_bytes().splitlines()
    except OSError as exc:
        _fail(f"--batch {batch}: {exc.strerror or exc}")
    bad = 0
    for number, raw in enumerate(tqdm(lines, desc="parse-prereq", unit="line", file=sys.stderr), 1):
        try:
            clause, by_model, left = type_prose(_batch_line(raw, number, batch), fb, table)
            out = _answer(clause, by_model, left)
        except (ValueError, RuntimeError) as exc:  # a malformed line, or the endpoint failed
            bad += 1
            typer.echo(f"error: {exc}", err=True)
            out = {"error": str(exc)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    if bad:
        typer.echo(f"error: {bad} of {len(lines)} lines of {batch} were not answered", err=True)
        raise typer.Exit(2)


def register(root: typer.Typer) -> typer.Typer:
    root.add_typer(app, name="catalog")
    return app
