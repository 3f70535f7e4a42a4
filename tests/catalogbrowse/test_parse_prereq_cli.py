"""`pathwise catalog parse-prereq`: one JSON object per string, the batch form in order with a
malformed line answered by an error naming it, and the model fallback through an endpoint."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pathwise.cli import app
from tests.helpers.fake_openai import FakeOpenAI

RUN = CliRunner()


def lines(out: str) -> list[dict]:
    return [json.loads(x) for x in out.splitlines() if x.startswith("{")]


def test_one_string_one_object() -> None:
    res = RUN.invoke(app, ["catalog", "parse-prereq", "MATH 220; open to majors only.", "--json"])
    assert res.exit_code == 0, res.output
    (data,) = lines(res.stdout)
    assert set(data) == {"ast", "unresolved", "by_model"}
    assert data["unresolved"] == ["open to majors only"] and data["by_model"] == []


def test_batch_answers_in_order_and_names_a_malformed_line(tmp_path: Path) -> None:
    batch = tmp_path / "in.jsonl"
    batch.write_text(
        "\n".join(
            [
                json.dumps({"text": "MATH 220 or MATH 230."}),
                '{"text": "unterminated',
                json.dumps({"txt": "CHEM 121."}),
                json.dumps({"text": "Psych 230. Taught in Norwegian."}),
            ]
        )
        + "\n"
    )
    res = RUN.invoke(app, ["catalog", "parse-prereq", "--batch", str(batch), "--json"])
    assert res.exit_code == 2
    out = lines(res.stdout)
    assert len(out) == 4
    assert out[0]["ast"]["kind"] == "any_of"
    assert out[1]["error"].startswith(f"{batch} line 2: not JSON")
    assert "line 3" in out[2]["error"] and '"text"' in out[2]["error"]
    psych, offered = out[3]["ast"]["items"]
    assert psych == {"kind": "course", "course": "PSYCH 230"}
    assert offered == {"kind": "unsupported", "text": "Taught in Norwegian"}
    assert "line 2" in res.stderr and "2 of 4 lines" in res.stderr


def test_text_that_is_not_unicode_is_one_line_naming_where(tmp_path: Path) -> None:
    """A lone surrogate (JSON's \\ud800), or a byte the shell could not decode, in a string or a
    line: one error naming the line and character; every other line is still answered."""
    res = RUN.invoke(app, ["catalog", "parse-prereq", "MATH 220 \udcff and", "--json"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.strip() == (
        "error: the prerequisite string: not valid text: '\\udcff' at character 10 is a lone "
        "surrogate or an undecodable byte"
    )
    batch = tmp_path / "in.jsonl"
    batch.write_bytes(
        b'{"text": "MATH 101"}\n'
        b'{"text": "MATH \\ud800 220"}\n'
        b'{"text": "CS 1\xff"}\n'
        b'{"text": "CHEM 121."}\n'
    )
    res = RUN.invoke(app, ["catalog", "parse-prereq", "--batch", str(batch), "--json"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    out = lines(res.stdout)
    assert [o.get("ast", {}).get("course") for o in (out[0], out[3])] == ["MATH 101", "CHEM 121"]
    assert out[1]["error"] == (
        f"{batch} line 2: not valid text: '\\ud800' at character 6 is a lone surrogate or an "
        "undecodable byte"
    )
    assert out[2]["error"] == f"{batch} line 3: not UTF-8 (byte 0xff at 15)"
    assert "2 of 4 lines" in res.stderr


def test_batch_with_the_model_behind_an_endpoint(tmp_path: Path) -> None:
    batch = tmp_path / "in.jsonl"
    texts = ["MATH 220. Taught in Norwegian.", "Taught in Norwegian.",
             "PSYCH 230 along with PSYCH 244."]  # fmt: skip
    batch.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    replies = [
        json.dumps({"ast": None}),  # "Taught in Norwegian": no requirement (asked once, cached)
        json.dumps({"ast": "PSYCH 999"}),  # escapes the enum: refused, retried once
        json.dumps({"ast": {"all": ["PSYCH 230", "PSYCH 244"]}}),
    ]
    with FakeOpenAI(replies, models=("clause",)).running() as fake:
        res = RUN.invoke(
            app,
            ["catalog", "parse-prereq", "--batch", str(batch), "--json", "--endpoint",
             fake.base_url, "--api-key", "k-123"],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    a, b, c = lines(res.stdout)
    assert a == {"ast": {"kind": "course", "course": "MATH 220"}, "unresolved": [],
                 "by_model": ["Taught in Norwegian"]}  # fmt: skip
    assert b == {"ast": None, "unresolved": [], "by_model": ["Taught in Norwegian"]}
    assert c["ast"]["kind"] == "all_of" and c["by_model"] == ["PSYCH 230 along with PSYCH 244"]
    assert len(fake.requests) == 3
    assert fake.headers[0]["Authorization"] == "Bearer k-123"
    schema = fake.requests[1]["response_format"]["json_schema"]["schema"]
    assert "PSYCH 999" not in json.dumps(schema) and "PSYCH 244" in json.dumps(schema)


def test_model_without_a_trained_model_is_one_clear_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATHWISE_CLAUSE_MODEL", str(tmp_path / "none"))
    res = RUN.invoke(app, ["catalog", "parse-prereq", "MATH 220.", "--model"])
    assert res.exit_code == 2
    assert "clause-model train" in res.stderr and "Traceback" not in res.output
