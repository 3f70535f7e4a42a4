"""Each platform adapter on its own family, chosen from the page; bad pages recorded as failed."""

from __future__ import annotations

import pytest

from catalogbrowse.adapters import read_page
from envs.catalog.snapshot import Snapshot
from planner.documents import load_docs


def _read(snap, url):
    s = Snapshot(snap / "site")
    return read_page(url, *s.get(url))


def _first(snap, pred):
    s = Snapshot(snap / "site")
    return next(p.url for p in s.manifest.pages if pred(p.url))


@pytest.mark.parametrize(
    ("family", "adapter", "pick"),
    [
        (
            "courseleaf",
            "records",
            lambda u: (
                u.startswith("/courses/")
                and u.count("/") == 3
                and u.endswith("/")
                and u != "/courses/"
            ),
        ),
        ("acalog", "dom", lambda u: u.startswith("/preview_course.php")),
        ("api", "api", lambda u: u.startswith("/api/v1/subjects/") and u.endswith("cursor=0")),
        (
            "pdf",
            "pdf",
            lambda u: u.startswith("/bulletin/2025/courses-") and "interdisciplinary" not in u,
        ),
        ("custom", "dom", lambda u: u.startswith("/dept/") and u.count("/") == 3),
    ],
)
def test_adapter_reads_its_family(snapshots, family, adapter, pick) -> None:
    snap = snapshots[family]
    gold = {c.id: c for c in load_docs(snap / "gold").courses.courses}
    url = _first(snap, pick)
    y = _read(snap, url)
    assert y.adapter == adapter and y.failed is None
    assert y.courses
    for rec in y.courses:
        g = gold[rec.id.value]
        assert y.text[rec.id.start : rec.id.end] == g.id
        assert rec.title.value == g.title
        assert float(rec.units.value) == g.units
        if rec.prereq is not None:
            assert y.text[rec.prereq.start : rec.prereq.end] == rec.prereq.value


def test_index_pages_yield_entries_and_cursors(snapshots) -> None:
    y = _read(snapshots["acalog"], "/content.php?navoid=courses&page=1")
    assert len(y.entries) == 15 and y.declared["pages"] >= 4
    assert {ln.role for ln in y.links} >= {"entity", "cursor"}
    y = _read(snapshots["api"], "/api/v1/subjects")
    assert y.declared["subjects"] == 5 and sum(e.startswith("subject:") for e in y.entries) == 6


def test_programs_and_ge_are_read(snapshots) -> None:
    for fam, url in (
        ("courseleaf", "/ge/"),
        ("custom", "/majors.html"),
        ("pdf", "/bulletin/2025/programs.pdf"),
    ):
        y = _read(snapshots[fam], url)
        assert y.programs or y.ge
        for p in y.programs:
            assert p.groups and all(
                y.text[f.start : f.end].endswith(f.value[-10:]) for _, f in p.groups
            )


@pytest.mark.parametrize(
    ("body", "ctype", "url", "why"),
    [
        (
            b'<html><body><div class="courseblock"><p class="courseblocktitle"><strong>CS 1',
            "text/html",
            "/courses/cs/",
            None,
        ),
        (
            b"<html><body><h1>Document unavailable</h1></body></html>",
            "application/pdf",
            "/b/x.pdf",
            "not a PDF",
        ),
        (b"%PDF-1.4 truncated garbage", "application/pdf", "/b/y.pdf", "not a readable PDF"),
        (b'{"items": [', "application/json", "/api/v1/x", "unparseable"),
        (b"not found\n", "text/plain", "/courses/zz/", "HTTP 404"),
    ],
)
def test_bad_pages_are_recorded_as_failed_not_raised(body, ctype, url, why) -> None:
    status = 404 if why == "HTTP 404" else 200
    y = read_page(url, status, body, ctype)
    if why is None:  # truncated HTML: whatever parses is kept, nothing raises
        assert y.failed is None and y.courses == []
    else:
        assert why in y.failed
