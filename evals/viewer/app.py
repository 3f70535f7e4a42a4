"""The trace viewer: server-rendered pages over one or more run folders (WebRider Table 60
step rows, Table 16 outcome labels, Figure 5's side-by-side reading of two rollouts).

Every request re-reads what the runner appended since the last one, so a batch that is still
running shows up as it goes. Files are only ever opened for reading.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.templating import Jinja2Templates

from contracts.intent import IntentContract
from evals.viewer.contract_view import contract_files_for, contract_view, load_contract_index
from evals.viewer.images import trimmed_file
from evals.viewer.reader import RunReader
from evals.viewer.views import (
    GATE_NAMES,
    RolloutSummary,
    first_divergence,
    step_panels,
    summarize,
)

HERE = Path(__file__).parent
STATUSES = ("success", "fail", "access", "runtime", "running")
PAGE_SIZE = 250  # rollouts per runs page: a 4,096-contract run stays quick to render
STATIC = {"viewer.css": "text/css", "viewer.js": "text/javascript"}
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def run_names(dirs: list[Path]) -> list[str]:
    """Short distinct names: the folder name, with its parent when two runs share it."""
    names = [d.resolve().name for d in dirs]
    return [
        f"{d.resolve().parent.name}/{n}" if names.count(n) > 1 else n
        for d, n in zip(dirs, names, strict=True)
    ]


def rollout_url(run: int, rollout_id: str) -> str:
    return f"/run/{run}/rollout/{quote(rollout_id, safe='/@')}"


class Viewer:
    def __init__(self, run_dirs: list[Path], contract_files: list[Path] | None = None) -> None:
        self.readers = [RunReader(d, n) for d, n in zip(run_dirs, run_names(run_dirs), strict=True)]
        self.contracts: list[dict[str, IntentContract]] = []
        self.contract_errors: list[str] = []
        self._summaries: dict[int, dict[str, tuple[tuple[int, int], RolloutSummary]]] = {}
        found = [contract_files_for(d) for d in run_dirs]
        for own in found:
            # A run's own contract file first, then the others' (a live eval's candidate run
            # has none of its own but shares the reference run's contracts).
            files = [*(contract_files or []), *own, *(f for fs in found for f in fs)]
            index, errors = load_contract_index(list(dict.fromkeys(files)))
            self.contracts.append(index)
            self.contract_errors += [e for e in errors if e not in self.contract_errors]

    def reader(self, run: int, refresh: bool = True) -> RunReader:
        if not 0 <= run < len(self.readers):
            raise HTTPException(404, f"no run {run}")
        return self.readers[run].refresh() if refresh else self.readers[run]

    def middles(self, run: int) -> list[str]:
        """Middle policies named in a run's step rows (run.json names only the config)."""
        names = {
            s.middle_policy
            for ro in self.readers[run].rollouts.values()
            for s in ro.steps.values()
            if s.middle_policy
        }
        return sorted(names)

    def summaries(self, run: int) -> list[RolloutSummary]:
        """Every rollout's summary, recomputed only for rollouts that changed since."""
        r = self.reader(run)
        cache = self._summaries.setdefault(run, {})
        out = []
        for rid, ro in r.rollouts.items():
            key = (r.generation, ro.version)
            hit = cache.get(rid)
            if hit is None or hit[0] != key:
                hit = cache[rid] = (key, summarize(run, ro))
            out.append(hit[1])
        return sorted(out, key=lambda s: (s.contract_id, s.attempt))

    def final_by_contract(self, run: int) -> dict[str, RolloutSummary]:
        """The last attempt per contract (what load_outcomes scores)."""
        out: dict[str, RolloutSummary] = {}
        for s in self.summaries(run):
            out[s.contract_id] = s
        return out

    def view_of(self, run: int, rollout_id: str) -> dict[str, Any]:
        r = self.reader(run)
        ro = r.rollouts.get(rollout_id)
        if ro is None:
            raise HTTPException(404, f"run {r.name} has no rollout {rollout_id!r}")
        summary = summarize(run, ro)
        steps = ro.ordered_steps()
        ref = ro.outcome.contract if ro.outcome else (steps[0].contract if steps else None)
        contract = None
        if ref is not None:
            contract = contract_view(
                ref, steps[0] if steps else None, self.contracts[run].get(ref.contract_id)
            )
        panels, errors = step_panels(r, ro, summary)
        return {
            "summary": summary,
            "contract": contract,
            "steps": panels,
            "errors": errors,
            "run_name": r.name,
        }


def _counts(summaries: list[RolloutSummary]) -> dict[str, int]:
    c = {k: 0 for k in STATUSES}
    for s in summaries:
        c[s.status] += 1
    c["rollouts"] = len(summaries)
    c["with_gates"] = sum(s.cgs is not None for s in summaries)
    c["cgs"] = sum(bool(s.cgs) for s in summaries)
    c["errors"] = sum(s.errors for s in summaries)
    return c


def create_app(run_dirs: list[Path], contract_files: list[Path] | None = None) -> FastAPI:
    viewer = Viewer(run_dirs, contract_files)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(rollout_url=rollout_url, gate_names=GATE_NAMES, quote=quote)
    app = FastAPI(title="Pathwise trace viewer", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.viewer = viewer

    def page(request: Request, name: str, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("runs", viewer.readers)
        return templates.TemplateResponse(request, name, ctx)

    @app.get("/", response_class=HTMLResponse)
    def runs(
        request: Request, status: str = "", q: str = "", run: str = "", page_no: int = 1
    ) -> Any:
        # The filter form sends run="" for "all runs", so the run index arrives as text.
        run_i = int(run) if run.isdigit() else None
        cards, rows = [], []
        for i, reader in enumerate(viewer.readers):
            summaries = viewer.summaries(i)
            manifest = reader.manifest() or {}
            cards.append(
                {
                    "index": i,
                    "reader": reader,
                    "policy": manifest.get("policy", ""),
                    "middles": viewer.middles(i),
                    "counts": _counts(summaries),
                    "errors": reader.errors,
                    "pending": sum(reader.pending.values()),
                }
            )
            if run_i is not None and run_i != i:
                continue
            rows += [
                s
                for s in summaries
                if (not status or s.status == status)
                and (not q or q.lower() in f"{s.rollout_id} {s.task} {s.persona}".lower())
            ]
        pages = max(1, -(-len(rows) // PAGE_SIZE))
        page_no = min(max(1, page_no), pages)
        start = (page_no - 1) * PAGE_SIZE
        return page(
            request,
            "runs.html",
            cards=cards,
            rows=rows[start : start + PAGE_SIZE],
            total=len(rows),
            first=start + 1,
            page_no=page_no,
            pages=pages,
            status=status,
            q=q,
            run=run_i,
            statuses=STATUSES,
            contract_errors=viewer.contract_errors,
        )

    @app.get("/run/{run}/rollout/{rollout_id:path}", response_class=HTMLResponse)
    def rollout(request: Request, run: int, rollout_id: str) -> Any:
        return page(request, "rollout.html", run=run, **viewer.view_of(run, rollout_id))

    @app.get("/run/{run}/file/{rel:path}")
    def run_file(run: int, rel: str, trim: bool = False) -> Any:
        reader = viewer.reader(run, refresh=False)
        path = reader.file_path(rel)
        if path is None or path.suffix.lower() not in IMAGE_TYPES:
            raise HTTPException(404, f"{rel}: no such image in run {reader.name}")
        if trim:
            return Response(trimmed_file(path), media_type="image/png")
        return FileResponse(path, media_type=IMAGE_TYPES[path.suffix.lower()])

    @app.get("/compare", response_class=HTMLResponse)
    def compare_index(
        request: Request, a: int = 0, b: int = 1, differ: bool = False, page_no: int = 1
    ) -> Any:
        if len(viewer.readers) < 2:
            return page(request, "compare_index.html", a=a, b=b, rows=[], single=True)
        fa, fb = viewer.final_by_contract(a), viewer.final_by_contract(b)
        shared = sorted(fa.keys() & fb.keys())
        if differ:
            shared = [c for c in shared if fa[c].status != fb[c].status]
        pages = max(1, -(-len(shared) // PAGE_SIZE))
        page_no = min(max(1, page_no), pages)
        start = (page_no - 1) * PAGE_SIZE
        rows = []
        for cid in shared[start : start + PAGE_SIZE]:  # divergence only for the rows shown
            sa, sb = fa[cid], fb[cid]
            steps_a = viewer.readers[a].rollouts[sa.rollout_id].ordered_steps()
            steps_b = viewer.readers[b].rollouts[sb.rollout_id].ordered_steps()
            rows.append(
                {
                    "contract_id": cid,
                    "a": sa,
                    "b": sb,
                    "diverge": first_divergence(steps_a, steps_b),
                }
            )
        return page(
            request,
            "compare_index.html",
            a=a,
            b=b,
            rows=rows,
            single=False,
            total=len(shared),
            first=start + 1,
            page_no=page_no,
            pages=pages,
            differ=differ,
        )

    @app.get("/compare/view", response_class=HTMLResponse)
    def compare(request: Request, contract: str, a: int = 0, b: int = 1) -> Any:
        sides = []
        for run in (a, b):
            final = viewer.final_by_contract(run)
            if contract not in final:
                raise HTTPException(404, f"run {viewer.readers[run].name} has no {contract!r}")
            sides.append(viewer.view_of(run, final[contract].rollout_id) | {"run": run})
        steps_a = [p["row"] for p in sides[0]["steps"]]
        steps_b = [p["row"] for p in sides[1]["steps"]]
        # Rows align by step index, so a step missing from a trace shows as a gap.
        by_index = [{p["index"]: p for p in s["steps"]} for s in sides]
        n = max([*by_index[0], *by_index[1]], default=-1) + 1
        last = [max(d, default=-1) for d in by_index]
        rows = [
            [d.get(i, "ended" if i > end else None) for d, end in zip(by_index, last, strict=True)]
            for i in range(n)
        ]
        return page(
            request,
            "compare.html",
            sides=sides,
            rows=rows,
            diverge=first_divergence(steps_a, steps_b),
            contract=sides[0]["contract"] or sides[1]["contract"],
            a=a,
            b=b,
        )

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in STATIC:
            raise HTTPException(404)
        return Response((HERE / "static" / name).read_bytes(), media_type=STATIC[name])

    return app
