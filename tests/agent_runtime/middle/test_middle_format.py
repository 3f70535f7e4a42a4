"""Middle interface formats: label layouts, the echoed label text, and that the guards,
the schemas and the offline metrics keep the paper's Action AST underneath."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_runtime.guards.compiler import compile_action
from agent_runtime.middle.base import MiddleInput
from agent_runtime.middle.endpoint import EndpointMiddle, step_schema
from agent_runtime.middle.format import (
    FORMATS,
    PAPER,
    decoding_schema,
    format_from_manifest,
    get_format,
    label_line,
    parse_label_lines,
    render_answer,
    strip_rationale,
)
from agent_runtime.middle.grounded_schema import grounded_schema_from_text
from agent_runtime.middle.prompt import middle_system_prompt, render_middle_user_text
from contracts import ActionAST, TopState
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.observations import el, obs

ECHO = FORMATS["echo"]
PAGE = obs(
    el(0, "textbox", "Username", input_type="text", value='a"b'),
    el(3, "link", 'say "hi"  now'),
    el(7, "checkbox", "5F0HO", checked=False),
)


def _alts(schema: dict) -> list[dict]:
    return schema["properties"]["action"]["anyOf"]


def test_label_layouts() -> None:
    link = PAGE.label(3)
    assert label_line(link, PAPER) == '[3] link "say \\"hi\\" now"'
    assert label_line(link, ECHO) == 'link "say \\"hi\\" now" [3]'
    assert label_line(PAGE.label(0), ECHO) == 'textbox type=text value="a\\"b" "Username" [0]'


@pytest.mark.parametrize("name", list(FORMATS))
def test_label_lines_read_back_from_the_rendered_turn(name: str) -> None:
    fmt = FORMATS[name]
    inp = MiddleInput(top=TopState(intention="t", command='click "x" link'), observation=PAGE)
    text = render_middle_user_text(inp, fmt)
    assert parse_label_lines(text, fmt) == {0: "Username", 3: 'say "hi" now', 7: "5F0HO"}


@pytest.mark.parametrize(
    "action",
    [
        {"type": "click", "target": 3},
        {"type": "type", "target": 0, "text": "bob", "submit": True},
        {"type": "scroll", "target": "window", "direction": "down"},
        {"type": "wait", "reason": "loading", "seconds": 1.0},
    ],
)
def test_echoed_answer_compiles_to_the_same_post_guard_action(action: dict) -> None:
    ast = ActionAST.model_validate({"action": action})
    answer = render_answer(ast, PAGE, ECHO)
    body = json.loads(answer)["action"]
    if action["type"] in ("click", "type"):
        # The text comes right after the type, before the number it names.
        assert list(body)[:3] == ["type", "label_text", "target"]
        assert body["label_text"] == PAGE.label(action["target"]).text.replace("  ", " ")
    else:
        assert "label_text" not in body
    compiled = compile_action(answer, PAGE)
    assert compiled.action == ast
    assert json.loads(render_answer(ast, PAGE, PAPER)) == json.loads(ast.to_json())
    assert strip_rationale(json.loads(answer)) == json.loads(ast.to_json())


def test_global_echo_schema_adds_the_text_before_the_target_only_for_click_and_type() -> None:
    by_type = {a["properties"]["type"]["const"]: a for a in _alts(decoding_schema(ECHO))}
    for kind in ("click", "type"):
        props = list(by_type[kind]["properties"])
        assert props[:3] == ["type", "label_text", "target"]
        assert by_type[kind]["required"] == props
    assert "label_text" not in by_type["scroll"]["properties"]
    assert decoding_schema(PAPER) == decoding_schema(None or PAPER)
    assert all("label_text" not in a["properties"] for a in _alts(decoding_schema(PAPER)))


def test_grounded_echo_schema_decodes_each_text_with_its_own_number() -> None:
    inp = MiddleInput(top=TopState(intention="t", command='check "5F0HO"'), observation=PAGE)
    schema = grounded_schema_from_text(render_middle_user_text(inp, ECHO), ECHO)
    clicks = [a["properties"] for a in _alts(schema) if a["properties"]["type"]["const"] == "click"]
    pairs = {(p["label_text"]["const"], p["target"]["const"]) for p in clicks}
    assert pairs == {("Username", 0), ('say "hi" now', 3), ("5F0HO", 7)}
    # Every admitted (text, number) pair compiles to a click on that number.
    for text, target in pairs:
        raw = json.dumps({"action": {"type": "click", "label_text": text, "target": target}})
        assert compile_action(raw, PAGE).action.action.target == target


def test_endpoint_middle_speaks_the_format() -> None:
    reply = '{"action":{"type":"click","label_text":"5F0HO","target":7}}'
    inp = MiddleInput(top=TopState(intention="t", command='check "5F0HO"'), observation=PAGE)
    with FakeOpenAI([reply]).running() as fake:
        out = EndpointMiddle(fake.base_url, "m", timeout=5, fmt=ECHO).propose(inp)
    req = fake.requests[0]
    user = req["messages"][1]["content"][-1]["text"]
    assert 'checkbox unchecked "5F0HO" [7]' in user
    assert "label_text" in req["messages"][0]["content"]
    schema = req["response_format"]["json_schema"]["schema"]
    assert any("label_text" in a["properties"] for a in _alts(schema))
    assert compile_action(out.raw, PAGE).action.action.target == 7


def test_a_textless_element_is_echoed_by_its_role_and_decoded_with_its_number() -> None:
    page = obs(
        el(0, "textbox", "", input_type="text"),
        el(1, "textbox", "", input_type="text"),
        el(2, "button", "no"),
    )
    ast = ActionAST.model_validate({"action": {"type": "type", "target": 1, "text": "Enola"}})
    body = json.loads(render_answer(ast, page, ECHO))["action"]
    assert body["label_text"] == "textbox"
    assert compile_action(render_answer(ast, page, ECHO), page).action == ast
    inp = MiddleInput(top=TopState(intention="t", command='click "no" button'), observation=page)
    text = render_middle_user_text(inp, ECHO)
    # The prompt still shows the element's own (empty) text; only the echo names its role.
    assert parse_label_lines(text, ECHO) == {0: "", 1: "", 2: "no"}
    assert "its role if it has none" in middle_system_prompt(ECHO)
    clicks = [
        a["properties"]
        for a in _alts(grounded_schema_from_text(text, ECHO))
        if a["properties"]["type"]["const"] == "click"
    ]
    pairs = {(p["label_text"]["const"], p["target"]["const"]) for p in clicks}
    assert pairs == {("textbox", 0), ("textbox", 1), ("no", 2)}  # no empty choice left
    # The endpoint builds the same schema from the live observation as offline eval from text.
    assert step_schema(inp, ECHO) == grounded_schema_from_text(text, ECHO)
    # A dataset written before the field existed keeps its "" echoes.
    old = format_from_manifest(
        {"middle_format": {"name": "echo", "labels": "text_first", "echo_label": True}}
    )
    assert json.loads(render_answer(ast, page, old))["action"]["label_text"] == ""
    assert "its role" not in middle_system_prompt(old)


def test_format_names_and_manifests() -> None:
    assert get_format("echo") is ECHO and get_format(None) is PAPER
    with pytest.raises(ValueError, match="unknown middle format 'nope'; known: paper"):
        get_format("nope")
    assert format_from_manifest({}) == PAPER
    assert format_from_manifest({"middle_format": ECHO.model_dump()}) == ECHO


def test_offline_metrics_score_the_action_not_the_echo(tmp_path: Path) -> None:
    from evals.offline.run import OfflineConfig, run_offline
    from serving.protocol import ChatResult
    from tests.helpers.sft_records import png_image, record, save_dataset

    target = '{"action":{"type":"click","label_text":"ok","target":2},"fallback":{"type":"back"}}'
    # Right number under a wrong echoed text: the executed click is right, so it matches.
    replies = iter(
        [
            '{"action":{"type":"click","label_text":"nope","target":2},"fallback":{"type":"back"}}',
            '{"action":{"type":"click","label_text":"ok","target":5},"fallback":{"type":"back"}}',
        ]
    )

    class _Backend:
        def chat(self, messages, json_schema=None, temperature=0.0, max_tokens=256):
            return ChatResult(text=next(replies))

    recs = [record(k, target, png_image()) for k in ("a", "b")]
    ds = save_dataset(
        tmp_path / "ds", {"train": recs[:1], "eval": recs}, {"middle_format": ECHO.model_dump()}
    )
    cfg = OfflineConfig(dataset=ds, out=tmp_path / "out", concurrency=1)
    res = run_offline(cfg, backend=_Backend(), progress=False)
    assert res["metrics"]["ast_validity"] == 1.0
    assert res["metrics"]["target_match"] == 0.5
    assert res["config"]["middle_format"]["name"] == "echo"
