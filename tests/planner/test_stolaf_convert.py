"""The St. Olaf converter on small hand-made sources (tests/planner/fixtures/stolaf, SOURCE.md
there): offerings from where sections appear, department aliases, Hanson filters and
where-expressions, and malformed term files stopped with file, record and field."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from planner.documents import AtMost, Pool, load_docs
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.solve import solve_ladder
from planner.stolaf.convert import convert
from planner.verify import verify_plan

FIXTURES = Path(__file__).parent / "fixtures" / "stolaf"
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import convert_stolaf  # noqa: E402


@pytest.fixture(scope="module")
def docs():
    return convert(FIXTURES)


def _course(docs, cid):
    return next(c for c in docs.courses.courses if c.id == cid)


def test_offerings_come_from_where_sections_appear(docs):
    cal = [(t.id, t.season, t.label) for t in docs.courses.calendar]
    assert cal == [
        ("20141", "fall", "Fall 2014"),
        ("20142", "interim", "Interim 2015"),
        ("20143", "spring", "Spring 2015"),
        ("20151", "fall", "Fall 2015"),
    ]
    assert docs.courses.term_cycle == ["fall", "interim", "spring"]
    cs121 = _course(docs, "CSCI 121")
    assert [o.term for o in cs121.offerings] == ["20141", "20143"]  # never in interim
    assert [o.term for o in _course(docs, "CSCI 300").offerings] == ["20142"]
    assert cs121.units == 1.0  # the 0-credit lab section does not set the credits
    # Provenance points at the section record: its term and clbid, and its span in the file.
    first = cs121.offerings[0].provenance
    assert first.record == "20141:0000000001"
    raw = (FIXTURES / "stolaf-courses" / "terms-20141.json").read_text()
    assert "0000000001" in raw[first.start : first.end]
    # GE codes come from the records (kept in their revision history upstream).
    wri = next(c for c in docs.ge.frameworks[0].categories if c.id == "WRI")
    assert wri.courses == ["AS/RE 250", "BI/ES 226", "ENGL 185", "WRIT 111", "WRIT 120"]
    # Interim has no load rule in the sources: recorded, never invented.
    assert any(p.applies_to == ["interim"] for p in docs.courses.unsupported_policies)


def test_department_aliases_resolved_and_recorded(docs):
    asre = _course(docs, "AS/RE 250")
    assert asre.department == "ASIAN" and asre.departments == ["ASIAN", "REL"]
    assert "AS -> ASIAN (to_department_abbreviations.json)" in asre.provenance.aliases
    assert asre.cross_listings == ["REL 250"]  # same number and title under REL
    # Prose "Economics 121" names ECON 121 through the names in the mapping file.
    econ = _course(docs, "ECON 260")
    assert "Economics -> ECON (to_department_abbreviations.json)" in econ.provenance.aliases
    assert {i.course for i in econ.prerequisite.items} == {"ECON 121", "MATH 120"}
    # The requirement file's "BIO 226" is the term files' cross-listed "BI/ES 226".
    major = next(p for p in docs.programs.programs if p.id == "test-major")
    assert "BIO 226 -> BI/ES 226" in major.provenance.aliases


def test_filter_and_where_encoded_or_recorded(docs):
    major = next(p for p in docs.programs.programs if p.id == "test-major")
    electives = next(i for i in major.requirement.items if i.label == "Electives")
    pool, at_most = electives.items
    assert isinstance(pool, Pool) and pool.min_courses == 2
    assert pool.pool.courses == ["BI/ES 226", "ECON 110", "ECON 121", "ECON 260", "ENGL 185"]
    assert isinstance(at_most, AtMost) and at_most.n == 1
    assert at_most.pool.courses == ["ECON 110", "ECON 121", "ENGL 185"]  # where {level = 100}
    topics = next(i for i in major.requirement.items if i.label == "Topics (TOP)")
    assert topics.course == "CSCI 300" and topics.terms == ["20142"]  # CSCI 300.*.2014.2
    # What cannot be encoded is a policy naming the file and the requirement.
    conc = next(p for p in docs.programs.programs if p.id == "test-concentration")
    kinds = {i.label: i.kind for i in conc.requirement.items}
    assert kinds == {"Core": "pool", "Credits": "unsupported", "Symposium": "unsupported"}
    credits = next(p for p in docs.programs.unsupported_policies if "Credits" in p.text)
    assert credits.provenance.source.endswith("concentrations/test-concentration.yaml")
    assert credits.text.startswith("test-concentration › Credits:")


def test_converted_major_plans_and_at_most_is_enforced(docs, cfg):
    g = compile_graph(docs)
    req = Request(
        program="test-major",
        ge_framework="none",
        start_term="fall 2014",
        horizon=4,
        max_units_per_term=3,
        acknowledged=["kind:background", "own-restrictions"],
    )
    status, plan = solve_ladder(g, req, cfg)
    assert status == "ok" and plan.certified
    placed = {c.course: c.term_id for c in plan.courses}
    assert placed["CSCI 300"] == "20142" and placed["CSCI 390"] == "20151"
    assert verify_plan(docs, [(c.course, c.term) for c in plan.courses], req) == []
    electives = {"ECON 110", "ECON 121", "ECON 260", "ENGL 185", "BI/ES 226"} & set(placed)
    assert len({c for c in electives if c != "ECON 260" and c != "BI/ES 226"}) <= 1
    # Two level-100 electives break the bound, and the verifier says so.
    bad = [("CSCI 121", 1), ("ECON 121", 1), ("CSCI 251", 3), ("CSCI 300", 2)]
    bad += [("ENGL 185", 3), ("ECON 110", 4), ("CSCI 390", 4)]
    assert any(v.kind == "requirement" for v in verify_plan(docs, bad, req))


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(FIXTURES, src)
    return src


@pytest.mark.parametrize(
    ("field", "value", "expect"),
    [
        ("number", None, "field 'number': Field required"),
        ("department", "XYZ", "field 'department': unknown department 'XYZ'"),
    ],
)
def test_bad_term_file_named_and_nothing_written(tmp_path, capsys, field, value, expect):
    src = _copy(tmp_path)
    path = src / "stolaf-courses" / "terms-20143.json"
    records = json.loads(path.read_text())
    if value is None:
        del records[2][field]
    else:
        records[2][field] = value
    path.write_text(json.dumps(records))
    out = tmp_path / "out"
    rc = convert_stolaf.main(["--src", str(src), "--out", str(out), "--out-2025", ""])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1
    assert f"terms-20143.json: record 2 (clbid 0000000022): {expect}" in err
    assert not out.exists()


def test_convert_script_writes_documents_that_load(tmp_path):
    out = tmp_path / "stolaf"
    rc = convert_stolaf.main(["--src", str(FIXTURES), "--out", str(out), "--out-2025", ""])
    assert rc == 0
    assert len(load_docs(out).courses.courses) == 15
