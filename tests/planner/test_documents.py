"""Document schema: errors name the file and JSON path; schema export; round trip."""

from __future__ import annotations

import json

import pytest

from planner.documents import (
    DocumentError,
    GECategory,
    GEFramework,
    json_schemas,
    load_docs,
    save_docs,
)
from planner.expr import AllOf, AnyOf, ChooseN, Coreq, CourseRef, Standing
from tests.planner.planner_fixtures import P, catalog, course


def _write(tmp_path, docs):
    save_docs(docs, tmp_path)
    return tmp_path


def test_round_trip(tmp_path):
    """Every field of every document survives save and load, and saving again writes the same
    bytes (so a saved catalog is a fixed point, not a lossy summary)."""
    fw = GEFramework(
        id="G",
        name="General Education",
        courses_count_once=True,
        provenance=P,
        categories=[
            GECategory(id="W", name="Writing", courses=["F 1"], provenance=P),
            GECategory(
                id="Q",
                name="Quantitative",
                min_courses=2,
                courses=["A 1", "B 2"],
                requirement=AnyOf(items=[CourseRef(course="A 1"), CourseRef(course="B 2")]),
                provenance=P,
            ),
        ],
    )
    docs = catalog(
        [
            course("A 1", units=3.5, seasons=["fall", "spring"], level=100),
            course("B 2", pre=AllOf(items=[CourseRef(course="A 1"), Standing(min_units=8)])),
            course("F 1", title="First-year writing", departments=["F", "ENGL"], level=110),
            course("L 2", units=1, pre=Coreq(course="B 2"), exclusions=["F 1"]),
        ],
        ChooseN(n=2, items=[CourseRef(course=c) for c in ("A 1", "B 2", "F 1")]),
        double_within=False,
        frameworks=[fw],
    )
    first = _write(tmp_path / "first", docs)
    loaded = load_docs(first)
    assert loaded == docs
    assert loaded.model_dump() == docs.model_dump()
    again = _write(tmp_path / "again", loaded)
    for name in ("courses.json", "programs.json", "ge.json"):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def test_schema_error_names_file_and_json_path(tmp_path):
    _write(tmp_path, catalog([course("A 1"), course("B 2")], CourseRef(course="B 2")))
    data = json.loads((tmp_path / "courses.json").read_text())
    data["courses"][1]["units"] = "lots"
    (tmp_path / "courses.json").write_text(json.dumps(data))
    with pytest.raises(DocumentError) as err:
        load_docs(tmp_path)
    assert err.value.file.endswith("courses.json")
    assert err.value.path == "$.courses[1].units"


def test_nested_requirement_path(tmp_path):
    _write(tmp_path, catalog([course("A 1")], CourseRef(course="A 1")))
    data = json.loads((tmp_path / "programs.json").read_text())
    data["programs"][0]["requirement"] = {"kind": "choose_n", "n": -1, "items": []}
    (tmp_path / "programs.json").write_text(json.dumps(data))
    with pytest.raises(DocumentError) as err:
        load_docs(tmp_path)
    assert err.value.file.endswith("programs.json")
    assert err.value.path == "$.programs[0].requirement.n"


def test_missing_provenance_is_rejected(tmp_path):
    _write(tmp_path, catalog([course("A 1")], CourseRef(course="A 1")))
    data = json.loads((tmp_path / "ge.json").read_text())
    data["frameworks"] = [{"id": "G", "name": "G", "categories": []}]
    (tmp_path / "ge.json").write_text(json.dumps(data))
    with pytest.raises(DocumentError, match=r"ge.json: at \$.frameworks\[0\].provenance"):
        load_docs(tmp_path)


def test_json_schemas_cover_three_documents():
    schemas = json_schemas()
    assert set(schemas) == {"courses.json", "programs.json", "ge.json"}
    assert "UnsupportedPolicy" in json.dumps(schemas["courses.json"])
