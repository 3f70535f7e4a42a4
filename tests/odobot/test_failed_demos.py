"""A demonstration the scripted user could not finish is recorded, read back, and not redone."""

from __future__ import annotations

from odobot.pipeline import failed_demos


def test_failed_demonstrations_are_read_back_by_template(tmp_path) -> None:
    demos = tmp_path / "demos"
    demos.mkdir()
    (demos / "demo-asg_new.json").write_text("{}")
    (demos / "demo-mod_add_assignment.failed.txt").write_text("no combobox labeled 'X'\n")
    assert failed_demos(tmp_path) == {"demo-mod_add_assignment": "no combobox labeled 'X'"}


def test_no_failures_is_an_empty_mapping(tmp_path) -> None:
    (tmp_path / "demos").mkdir()
    assert failed_demos(tmp_path) == {}
