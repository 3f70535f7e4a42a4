"""Document schema: errors name the file and JSON path; schema export; round trip."""

from __future__ import annotations

import json

import pytest

from planner.documents import CourseRef, DocumentError, json_schemas, load_docs, save_docs
from tests.planner.planner_fixtures import catalog, course


def _write(tmp_path, docs):
    save_docs(docs, tmp_path)
    return tmp_path


def test_round_trip(tmp_path):
    docs = catalog(
        [course("A 1"), course("B 2", pre=CourseRef(course="A 1"))], CourseRef(course="B 2")
    )
    loaded = load_docs(_write(tmp_path, docs))
    assert loaded.courses.courses[1].prerequisite.course == "A 1"


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
