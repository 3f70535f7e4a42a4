"""Every planner command answers a malformed file with one line naming the file and the field
(exit code 2, no traceback), and a plan reads like a plan: a table per term, a why per course,
a picture; `pathwise bench stolaf --json` ends with one JSON line of counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pathwise.cli import app
from planner.documents import CourseRef, save_docs
from planner.stolaf.convert import convert
from tests.planner.planner_fixtures import catalog, course

FIXTURES = Path(__file__).parent / "fixtures" / "stolaf"


@pytest.fixture(scope="module")
def stolaf_docs(tmp_path_factory):
    out = tmp_path_factory.mktemp("stolaf")
    save_docs(convert(FIXTURES), out)
    return out


@pytest.fixture
def small(tmp_path):
    save_docs(
        catalog(
            [course("A 1"), course("B 2", pre=CourseRef(course="A 1"))], CourseRef(course="B 2")
        ),
        tmp_path / "docs",
    )
    return tmp_path


def _run(*args: str):
    res = CliRunner().invoke(app, list(args))
    return res, res.output.strip().splitlines()


def _one_line_error(res, lines, *needles):
    assert res.exit_code == 2, res.output
    # A clean exit (common.cli.fail raises typer.Exit(2)), not an exception escaping the command
    # (CliRunner reports those with exit code 1 and keeps them in res.exception).
    assert isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output and 'File "' not in res.output, res.output
    err = [x for x in lines if x.startswith("error:")]
    assert len(err) == 1, res.output
    for n in needles:
        assert n in err[0], err[0]


def test_plan_request_field_of_wrong_type(small):
    (small / "R.json").write_text(json.dumps({"horizon": "x"}))
    res, lines = _run("plan", "--docs", str(small / "docs"), "--request", str(small / "R.json"))
    _one_line_error(res, lines, "R.json", "$.horizon", "valid integer")


def test_plan_request_not_json_and_unknown_program(small):
    (small / "R.json").write_text("{horizon: 4")
    res, lines = _run("plan", "--docs", str(small / "docs"), "--request", str(small / "R.json"))
    _one_line_error(res, lines, "R.json", "not valid JSON")
    (small / "R.json").write_text(json.dumps({"program": "NOPE"}))
    res, lines = _run(
        "plan",
        "--docs",
        str(small / "docs"),
        "--request",
        str(small / "R.json"),
        "--out",
        str(small / "p.json"),
    )
    _one_line_error(res, lines, "$.program", "'NOPE'")


def test_plan_malformed_document(small):
    data = json.loads((small / "docs" / "courses.json").read_text())
    data["courses"][0]["units"] = "lots"
    (small / "docs" / "courses.json").write_text(json.dumps(data))
    (small / "R.json").write_text(json.dumps({"program": "P"}))
    res, lines = _run("plan", "--docs", str(small / "docs"), "--request", str(small / "R.json"))
    _one_line_error(res, lines, "courses.json", "$.courses[0].units")


def test_verify_plan_without_request_and_bad_entry(small):
    (small / "P.json").write_text(json.dumps({"plans": []}))
    res, lines = _run(
        "plan", "verify", "--docs", str(small / "docs"), "--plan", str(small / "P.json")
    )
    _one_line_error(res, lines, "P.json", "$.request", "Field required")
    bad = {
        "request": {"program": "P"},
        "plans": [{"rank": 1, "courses": [{"course": "A 1", "term": "x"}]}],
    }
    (small / "P.json").write_text(json.dumps(bad))
    res, lines = _run(
        "plan", "verify", "--docs", str(small / "docs"), "--plan", str(small / "P.json")
    )
    _one_line_error(res, lines, "P.json", "$.plans[0].courses[0].term")
    bad = {"request": {"program": "P", "horizon": "x"}, "plans": []}
    (small / "P.json").write_text(json.dumps(bad))
    res, lines = _run(
        "plan", "verify", "--docs", str(small / "docs"), "--plan", str(small / "P.json")
    )
    _one_line_error(res, lines, "P.json", "$.request.horizon")


def test_verify_reads_term_files_itself(tmp_path, stolaf_docs):
    out = tmp_path / "plan.json"
    res, _ = _run(
        "plan",
        "--docs",
        str(stolaf_docs),
        "--text",
        "I want to major in test major starting fall 2014, 2 years, at most 3 credits, "
        "no general education, I have my placement",
        "--acknowledge",
        "own-restrictions",
        "--top-k",
        "1",
        "--out",
        str(out),
    )
    assert res.exit_code == 0, res.output
    terms = tmp_path / "terms"
    shutil.copytree(FIXTURES / "stolaf-courses", terms)
    res, _ = _run(
        "plan", "verify", "--docs", str(stolaf_docs), "--plan", str(out), "--terms", str(terms)
    )
    assert res.exit_code == 0 and "plan 1: OK" in res.output, res.output
    # The term file no longer lists CSCI 300 in interim 2015: the verifier sees it itself.
    recs = [r for r in json.loads((terms / "terms-20142.json").read_text()) if r["number"] != 300]
    (terms / "terms-20142.json").write_text(json.dumps(recs))
    res, _ = _run(
        "plan", "verify", "--docs", str(stolaf_docs), "--plan", str(out), "--terms", str(terms)
    )
    assert res.exit_code == 1 and "CSCI 300 has no section in the term file of 20142" in res.output
    # A malformed term file: one line naming the file, the record and the field.
    recs = json.loads((terms / "terms-20141.json").read_text())
    del recs[1]["term"]
    (terms / "terms-20141.json").write_text(json.dumps(recs))
    res, lines = _run(
        "plan", "verify", "--docs", str(stolaf_docs), "--plan", str(out), "--terms", str(terms)
    )
    _one_line_error(res, lines, "terms-20141.json: record 1 (clbid 0000000002)", "'term'")


def test_schema_out_not_writable(tmp_path):
    (tmp_path / "f").write_text("a file, not a folder")
    res, lines = _run("plan", "schema", "--out", str(tmp_path / "f"))
    _one_line_error(res, lines, str(tmp_path / "f"), "cannot write")


def test_bench_planner_malformed_rows(tmp_path):
    (tmp_path / "rows.jsonl").write_text('{"key": {"seed": 9}}\n')
    res, lines = _run(
        "bench",
        "planner",
        "--pairs",
        "1",
        "--courses",
        "150",
        "--rows",
        str(tmp_path / "rows.jsonl"),
    )
    _one_line_error(res, lines, "rows.jsonl", "other settings")


def test_bench_stolaf_bad_docs_then_counts(tmp_path, stolaf_docs):
    res, lines = _run("bench", "stolaf", "--docs", str(tmp_path / "missing"), "--json")
    _one_line_error(res, lines, "missing", "courses.json", "no such catalog document")
    res, lines = _run(
        "bench",
        "stolaf",
        "--docs",
        str(stolaf_docs),
        "--program",
        "test-major",
        "--profile",
        "heavy",
        "--json",
    )
    assert res.exit_code == 0, res.output
    last = json.loads(lines[-1])
    assert last == {
        "programs": {
            "test-major": {
                "kind": "major",
                "pairs": 1,
                "certified": 1,
                "verified": 1,
                "infeasible": 0,
            }
        }
    }


def test_a_plan_reads_like_a_plan(tmp_path, stolaf_docs):
    out = tmp_path / "plan.json"
    res, _ = _run(
        "plan",
        "--docs",
        str(stolaf_docs),
        "--text",
        "I want to major in test major starting fall 2014, 2 years, at most 3 credits, "
        "no general education, I have my placement, I like statistics",
        "--acknowledge",
        "own-restrictions",
        "--top-k",
        "1",
        "--out",
        str(out),
    )
    assert res.exit_code == 0, res.output
    assert "read 'test major' as program test-major (major)" in res.output
    assert "read 'statistics' as an interest" in res.output
    assert "Fall 2014 (term 1" in res.output and "Interim 2015 (term 2" in res.output
    data = json.loads(out.read_text())
    placed = {c["course"]: c for c in data["plans"][0]["courses"]}
    assert placed["CSCI 390"]["counts_for"] == ["Test Major › Capstone"]
    assert "prerequisite of CSCI 251" in placed["CSCI 121"]["why"]
    assert "matches your interest 'statistics'" in placed["CSCI 121"]["why"]
    assert placed["CSCI 121"]["title"] == "Principles of Computer Science"
    assert [r["kind"] for r in data["relies_on"]] == ["restriction"]
    svg = out.with_suffix(".svg").read_text()
    assert "<svg" in svg and "CSCI 390" in svg


def test_explanation_lists_each_cause_once_grouped_by_requirement(tmp_path, stolaf_docs):
    out = tmp_path / "plan.json"
    res, lines = _run(
        "plan",
        "--docs",
        str(stolaf_docs),
        "--text",
        "I want to major in test major starting fall 2014, 2 years, at most 3 credits, "
        "no general education, I have my placement",
        "--top-k",
        "1",
        "--out",
        str(out),
    )
    assert res.exit_code == 0 and "No plan (infeasible)." in res.output
    data = json.loads(out.read_text())
    groups = {g["requirement"]: g for g in data["causes"]}
    cap = groups["the requirement 'Capstone' of test-major"]
    assert cap["source"].endswith("majors/test-major.yaml")
    assert [c["kind"] for c in cap["causes"]] == ["policy"]
    assert "open to computer science majors only" in cap["causes"][0]["text"]
    body = [x for x in lines if x.startswith("  - ")]
    assert len(body) == len(set(body))


def _plan(small, request: dict, *extra: str):
    (small / "R.json").write_text(json.dumps(request))
    args = ["--docs", str(small / "docs"), "--request", str(small / "R.json")]
    return _run("plan", *args, "--out", str(small / "p.json"), *extra)


@pytest.mark.parametrize(
    ("request_", "needles"),
    [
        ({}, ["$.program", "names a program"]),
        ({"program": "P", "max_units_by_season": {"fall": -4}}, ["max_units_by_season", "greater"]),
        ({"program": "P", "max_units_by_season": {"winterr": 4}}, ["winterr", "not a season"]),
        ({"program": "P", "max_units_per_term": float("nan")}, ["NaN"]),
        ({"program": "P", "start_season": "monsoon"}, ["$.start_season", "monsoon"]),
        (
            {"program": "P", "hypotheses": {"pace": {"fast": {"horizon": 1000}}}},
            ["hypothesis pace.fast", "horizon"],
        ),
    ],
)
def test_plan_refuses_requests_it_used_to_answer_silently(small, request_, needles):
    res, lines = _plan(small, request_)
    _one_line_error(res, lines, *needles)
    assert not (small / "p.json").exists()


def test_plan_out_is_never_overwritten_without_force(small):
    (small / "p.json").write_text("mine")
    res, lines = _plan(small, {"program": "P"})
    _one_line_error(res, lines, "p.json", "--force")
    assert (small / "p.json").read_text() == "mine"
    res, _ = _plan(small, {"program": "P"}, "--force")
    assert res.exit_code == 0 and json.loads((small / "p.json").read_text())["plans"]


def test_verify_refuses_a_rank_the_file_lacks(small):
    res, _ = _plan(small, {"program": "P"})
    assert res.exit_code == 0, res.output
    verify = ["plan", "verify", "--docs", str(small / "docs"), "--plan", str(small / "p.json")]
    res, lines = _run(*verify, "--rank", "99")
    _one_line_error(res, lines, "p.json", "--rank 99", "ranks 1")
    res, _ = _run(*verify, "--rank", "1")
    assert res.exit_code == 0 and "plan 1: OK" in res.output
    (small / "empty.json").write_text(json.dumps({"request": {"program": "P"}, "plans": []}))
    res, lines = _run(*verify[:-1], str(small / "empty.json"))
    _one_line_error(res, lines, "empty.json", "no plans")


def test_schema_writes_only_where_told(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res, _ = _run("plan", "schema")
    assert res.exit_code == 2 and not (tmp_path / "planner").exists()
    res, _ = _run("plan", "schema", "--out", "s")
    assert res.exit_code == 0 and len(list((tmp_path / "s").glob("*.schema.json"))) == 3
    res, lines = _run("plan", "schema", "--out", "s")
    _one_line_error(res, lines, "courses.schema.json", "--force")
    assert _run("plan", "schema", "--out", "s", "--overwrite")[0].exit_code == 0
