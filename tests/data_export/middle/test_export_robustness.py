"""Bad rows counted by reason with file:line examples; output atomic and never overwritten."""

from __future__ import annotations

import hashlib
import json

import pytest
from datasets import Image, load_from_disk
from PIL import Image as PILImage

from common.outputs import OutputExistsError
from data_export.middle import export as export_mod
from data_export.middle.reader import BadRows
from tests.helpers.synthetic_traces import outcome_row, step_row, write_trace


def test_bad_rows_counted_with_examples_never_crash(tmp_path, run_export):
    good = step_row("ok")
    lines = [
        good.model_dump_json(),
        "{not json",
        '{"kind": "step", "rollout_id": "x"}',  # schema violation: missing fields
        '{"kind": "weird"}',  # unknown row kind
        json.dumps({**json.loads(good.model_dump_json()), "extra_field": 1}),
        "",  # blank lines are ignored
        outcome_row().model_dump_json(),
        step_row("noshot", screenshot=None).model_dump_json(),
        step_row("gone", screenshot="shots/gone.png").model_dump_json(),
        step_row("escape", screenshot="../../etc/passwd").model_dump_json(),
        step_row("notpng", screenshot="shots/fake.png").model_dump_json(),
        good.model_dump_json()[:40],  # truncated last append (crash mid-write)
    ]
    write_trace(tmp_path, lines)
    (tmp_path / "shots" / "fake.png").write_text("not an image")
    (tmp_path / "traces" / "sub").mkdir()
    (tmp_path / "traces" / "sub" / "binary.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    m, out = run_export(tmp_path, eval_fraction=0.0)
    bad = m["bad_rows"]
    assert {k: v["count"] for k, v in bad.items()} == {
        "bad_json": 3,
        "schema_violation": 3,
        "missing_screenshot": 2,
        "bad_screenshot_path": 1,
        "bad_screenshot": 1,
    }
    assert bad["bad_json"]["examples"][0].startswith("traces/shard-0.jsonl:2: ")
    assert any(e.startswith("traces/shard-0.jsonl:12: ") for e in bad["bad_json"]["examples"])
    assert any(e.startswith("traces/sub/binary.jsonl:1") for e in bad["bad_json"]["examples"])
    assert bad["missing_screenshot"]["examples"][1].startswith("traces/shard-0.jsonl:9: ")
    assert m["counts"]["kept"] == 1
    assert m["counts"]["outcome_rows"] == 1
    assert len(load_from_disk(str(out))["train"]) == 1


def test_examples_are_capped():
    bad = BadRows(max_examples=5)
    for i in range(20):
        bad.add("bad_json", f"f.jsonl:{i}", "x")
    assert bad.as_dict()["bad_json"]["count"] == 20
    assert len(bad.as_dict()["bad_json"]["examples"]) == 5


def test_output_loads_with_image_feature_and_manifest(tmp_path, run_export):
    trace = write_trace(
        tmp_path, [step_row(f"b{i}", step=i) for i in range(6)], name="traces/w1.jsonl"
    )
    write_trace(tmp_path, [step_row("c")], name="traces/nested/w2.jsonl")
    m, out = run_export(tmp_path, eval_fraction=0.0)
    dd = load_from_disk(str(out))
    feats = dd["train"].features
    assert isinstance(feats["images"].feature, Image)
    assert (
        dd["train"].column_names
        == m["columns"]
        == [
            "messages",
            "images",
            "base_task_id",
            "rollout_id",
            "step_index",
            "source_sha256",
            "contract_id",
            "command_verb",
        ]
    )
    img = dd["train"][0]["images"][0]
    assert isinstance(img, PILImage.Image) and img.size == (64, 48)
    sha = hashlib.sha256(trace.read_bytes()).hexdigest()
    by_base = dict(zip(dd["train"]["base_task_id"], dd["train"]["source_sha256"], strict=True))
    assert by_base["b0"] == by_base["b5"] == sha != by_base["c"]
    srcs = {s["path"]: s["sha256"] for s in m["sources"]}
    assert srcs == {
        "traces/nested/w2.jsonl": srcs["traces/nested/w2.jsonl"],
        "traces/w1.jsonl": sha,
    }
    on_disk = json.loads((out / "manifest.json").read_text())
    for key in (
        "corpus_sha256",
        "exporter_version",
        "split",
        "counts",
        "bad_rows",
        "sources",
        "prompt_overlap",
        "min_confidence",
    ):
        assert key in on_disk
    assert on_disk["split"]["seed"] == 20260606
    # same input, same corpus hash; appended trace, new hash
    m2, _ = run_export(tmp_path, eval_fraction=0.0)
    assert m2["corpus_sha256"] == m["corpus_sha256"]
    write_trace(tmp_path, [step_row("d")], name="traces/w1.jsonl")
    m3, _ = run_export(tmp_path, eval_fraction=0.0)
    assert m3["corpus_sha256"] != m["corpus_sha256"]


def test_refuses_to_overwrite(tmp_path, run_export):
    write_trace(tmp_path, [step_row("a")])
    out = tmp_path / "ds"
    run_export(tmp_path, out=out, eval_fraction=0.0)
    before = (out / "manifest.json").read_text()
    with pytest.raises(OutputExistsError, match="--force"):
        run_export(tmp_path, out=out, eval_fraction=0.0)
    assert (out / "manifest.json").read_text() == before
    (tmp_path / "empty").mkdir()
    with pytest.raises(OutputExistsError):
        run_export(tmp_path, out=tmp_path / "empty")
    write_trace(tmp_path, [step_row("b")])
    m, _ = run_export(tmp_path, out=out, eval_fraction=0.0, overwrite=True)
    assert m["counts"]["kept"] == 2
    assert len(load_from_disk(str(out))["train"]) == 2
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ds.")]


def test_crash_leaves_no_half_dataset(tmp_path, run_export, monkeypatch):
    write_trace(tmp_path, [step_row("a")])

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(export_mod, "save_splits", boom)
    with pytest.raises(RuntimeError):
        run_export(tmp_path, out=tmp_path / "ds")
    assert not (tmp_path / "ds").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ds.")]


def test_missing_or_empty_trace_dir(tmp_path, run_export):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        run_export(tmp_path / "nope")
    (tmp_path / "t").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no \*\.jsonl"):
        run_export(tmp_path / "t")


def test_text_only_path(tmp_path, run_export):
    write_trace(tmp_path, [step_row("a", screenshot=None)])
    m, out = run_export(tmp_path, eval_fraction=0.0, images=False)
    rec = load_from_disk(str(out))["train"][0]
    assert rec["images"] == []
    assert [p["type"] for p in rec["messages"][1]["content"]] == ["text"]
    assert m["images"] is False


def test_run_event_logs_are_not_read_as_trace_rows(tmp_path, run_export):
    # A run directory keeps the executor's event log in events/*.jsonl beside traces/.
    write_trace(tmp_path, [step_row("a"), step_row("b")], name="traces/w1.jsonl")
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "miniwob_x_0_0.jsonl").write_text(
        '{"kind": "interaction", "event": "click"}\n{"kind": "location", "url": "u"}\n'
    )
    m, _ = run_export(tmp_path, eval_fraction=0.0)
    assert m["counts"]["kept"] == 2
    assert m["bad_rows"] == {}


def test_echo_format_is_recorded_and_targets_name_the_label_text(tmp_path, run_export):
    from agent_runtime.middle.format import FORMATS

    write_trace(tmp_path, [step_row("a"), step_row("b", action="type")], name="traces/w1.jsonl")
    m, out = run_export(tmp_path, eval_fraction=0.0, middle_format=FORMATS["echo"], images=False)
    assert m["middle_format"]["name"] == "echo"
    recs = {r["base_task_id"]: r for r in load_from_disk(str(out))["train"]}
    click = json.loads(recs["a"]["messages"][2]["content"][0]["text"])
    assert click["action"] == {"type": "click", "label_text": "Item 1 for a", "target": 1}
    user = recs["a"]["messages"][1]["content"][-1]["text"]
    assert 'button "Item 1 for a" [1]' in user
    paper, _ = run_export(tmp_path, eval_fraction=0.0, images=False)
    assert paper["middle_format"]["name"] == "paper"
    assert paper["system_prompt_sha256"] != m["system_prompt_sha256"]


def test_a_held_out_task_is_refused_and_nothing_written(tmp_path, run_export):
    write_trace(tmp_path, [step_row("miniwob/click-button/1"), step_row("miniwob/click-test/4")])
    out = tmp_path / "refused"
    with pytest.raises(export_mod.HeldOutTaskError) as err:
        run_export(tmp_path, out=out, heldout_families=("miniwob/click-test",))
    assert str(err.value).startswith("traces/shard-0.jsonl:2: task miniwob/click-test is held")
    assert not out.exists()
    m, _ = run_export(tmp_path, heldout_families=("miniwob/click-tab-2",))
    assert m["counts"]["kept"] == 2 and m["heldout_families"] == ["miniwob/click-tab-2"]
    assert export_mod.task_family("miniwob/click-test/4") == "miniwob/click-test"
