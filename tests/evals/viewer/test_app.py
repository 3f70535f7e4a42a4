"""Viewer pages over HTTP: labels, gates, errors on their page, read-only, loopback only."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from envs.webapp import AppServer, LoopbackOnly
from evals.viewer.app import create_app
from pathwise.cli import app as cli
from tests.helpers.viewer_runs import FIXTURE, append, crafted_outcomes

TRACE = Path("traces") / "shard-0-of-1.jsonl"
CB = "miniwob/click-checkboxes/101@0"


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }


def test_pages_show_gates_labels_and_errors_where_they_belong(runs: Path) -> None:
    teacher, perturbed = runs / "teacher", runs / "perturbed"
    for o in crafted_outcomes():
        append(perturbed / TRACE, o.model_dump_json() + "\n")
    # Break one step row, one screenshot and one event line of the same rollout.
    lines = (perturbed / TRACE).read_text().splitlines(keepends=True)
    bad = next(i for i, ln in enumerate(lines) if CB in ln and '"step_index":2' in ln)
    lines[bad] = lines[bad].replace('"step_index":2', '"step_index":"two"')
    (perturbed / TRACE).write_text("".join(lines))
    (perturbed / "screenshots" / "miniwob_click-checkboxes_101_0" / "step-003.png").unlink()
    append(perturbed / "events" / "miniwob_click-checkboxes_101_0.jsonl", "{broken\n")
    before = snapshot(runs)

    with AppServer(create_app([teacher, perturbed])) as server:
        get = lambda u: httpx.get(server.url + u, timeout=30)  # noqa: E731
        home = get("/")
        assert home.status_code == 200
        assert "captcha" in home.text and "runtime: TargetClosedError" in home.text
        assert home.text.count('class="gate cgs ok"') == 5  # 3 teacher + 2 perturbed passes
        assert "3/3</b> CGS" in home.text and "2/5</b> CGS" in home.text  # lamp/3 has no gates
        assert "middle <strong>perturbed-heuristic</strong>" in home.text
        only_fail = get("/?status=fail")
        assert only_fail.text.count('class="row-fail"') == 2  # perturbed checkboxes + lamp/1
        assert 'class="row-success"' not in only_fail.text

        page = get(f"/run/1/rollout/{CB}")
        assert page.status_code == 200
        assert f"traces/shard-0-of-1.jsonl:{bad + 1}</code> field &#39;step.step_index&#39;" in (
            page.text
        )
        assert "events/miniwob_click-checkboxes_101_0.jsonl:" in page.text
        assert "screenshot missing or unreadable" in page.text and "step-003.png" in page.text
        assert "steps missing before this one" in page.text  # step 2 is gone
        for i in (0, 1, 3, 4):
            assert f'id="step-{i}"' in page.text
        assert "EfGfJJl" in page.text  # the wrong checkbox the perturbed middle clicked
        shot = re.search(r'src="(/run/1/file/[^"]+step-000\.png)\?trim=1"', page.text)
        assert shot is not None
        full, trimmed = get(shot.group(1)), get(shot.group(1) + "?trim=1")
        assert full.headers["content-type"] == "image/png" and len(trimmed.content) > 0
        assert get("/run/1/file/../../teacher/run.json").status_code == 404

        gated = get("/run/1/rollout/shop/lamp/1@0")
        assert 'title="evidence: fail"' in gated.text and "No step rows yet" in gated.text

        index = get("/compare?a=0&b=1")
        assert "step 0</span>" in index.text and index.text.count("same actions") == 2
        differ = get("/compare?a=0&b=1&differ=true")
        assert "1 contract" in differ.text and "same actions" not in differ.text
        cmp = get("/compare/view?a=0&b=1&contract=miniwob/click-checkboxes/101")
        assert 'id="row-0" data-row="0" class="diverge"' in cmp.text
        # Rows align by step index: the teacher ended after step 3, the broken step 2 is a gap.
        assert cmp.text.count("— ended —") == 1 and cmp.text.count("— no row —") == 1
    assert snapshot(runs) == before  # the viewer wrote nothing into the run folders


def test_refuses_other_hosts() -> None:
    app = LoopbackOnly(create_app([FIXTURE / "teacher"]))
    assert TestClient(app, client=("10.1.2.3", 5000)).get("/").status_code == 403
    near = TestClient(app, client=("127.0.0.1", 5000), base_url="http://localhost:5000")
    assert near.get("/").status_code == 200


def test_cli_rejects_a_missing_run_folder(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["view", str(tmp_path / "nope")])
    assert r.exit_code == 2
    assert "not a run folder" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("status", ["success", "fail"])
def test_filters_by_outcome_and_text(status: str) -> None:
    client = TestClient(create_app([FIXTURE / "teacher", FIXTURE / "perturbed"]))
    text = client.get(f"/?status={status}&q=checkboxes").text
    assert re.findall(r'<tr class="row-(\w+)">', text) == [status]


def test_the_filter_form_for_all_runs_and_paging(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evals.viewer import app as viewer_app

    monkeypatch.setattr(viewer_app, "PAGE_SIZE", 2)
    client = TestClient(create_app([runs / "teacher", runs / "perturbed"]))
    first = client.get("/?run=&status=&q=")  # what the form sends for "all"
    assert first.status_code == 200 and "6 rollouts, showing 1–2" in first.text
    last = client.get("/?run=&status=&q=&page_no=3")
    assert "showing 5–6" in last.text and "page 3 of 3" in last.text
    assert len(re.findall(r'<tr class="row-', last.text)) == 2


def test_pages_follow_a_run_that_is_still_writing(runs: Path) -> None:
    run = runs / "teacher"
    trace = run / TRACE
    rows = trace.read_text().splitlines(keepends=True)
    steps = [ln for ln in rows if '"kind":"step"' in ln and "click-button" in ln]
    done = [ln for ln in rows if '"kind":"outcome"' in ln and "click-button" in ln]
    trace.write_text("".join(ln for ln in rows if "click-button" not in ln))
    client = TestClient(create_app([run]))
    assert "click-button" not in client.get("/").text
    append(trace, "".join(steps))
    assert 'class="row-running"' in client.get("/").text
    append(trace, "".join(done))
    page = client.get("/").text
    assert 'class="row-running"' not in page and page.count('class="row-success"') == 3


HOSTILE_LINES = [
    "[" * 5000 + "]" * 5000,  # deeper than any parser's recursion
    '{"kind":"step","rollout_id":"miniwob/click-button/100@0","step_index":Infinity}',
    '{"kind":"step","rollout_id":"miniwob/click-button/100@0","step_index":NaN}',
    '{"kind":"outcome","rollout_id":"miniwob/click-button/100@0","reward":1e999}',
    '{"kind":"step","rollout_id":"miniwob/click-button/100@0","middle_raw":"\\ud800"}',
    '{"kind":"step","rollout_id":"\\udfff"}',
    '{"rollout_id":"miniwob/click-button/100@0","step_index":' + "9" * 5000 + "}",
    '"just a string"',
]


@pytest.mark.parametrize("line", HOSTILE_LINES, ids=range(len(HOSTILE_LINES)))
def test_any_line_is_an_error_row_and_every_page_still_renders(runs: Path, line: str) -> None:
    teacher = runs / "teacher"
    events = teacher / "events" / "miniwob_click-button_100_0.jsonl"
    append(teacher / TRACE, line + "\n")
    append(teacher / TRACE, b"\xff\xfe not utf-8 \xc3\n".decode("latin-1") + "\n")
    append(events, line + "\n")
    client = TestClient(create_app([teacher]), base_url="http://127.0.0.1")
    home = client.get("/")
    assert home.status_code == 200
    page = client.get("/run/0/rollout/miniwob/click-button/100@0")
    assert page.status_code == 200 and 'id="step-0"' in page.text
    reader = client.app.state.viewer.readers[0]
    n_errors = len(reader.errors) + sum(len(r.errors) for r in reader.rollouts.values())
    assert n_errors >= 2
    # The read offset moved past the bad lines: a good row appended later is read.
    append(teacher / TRACE, crafted_outcomes()[0].model_dump_json() + "\n")
    assert client.get("/").status_code == 200
    assert "shop/lamp/1@0" in reader.refresh().rollouts
