"""The one loader: where each failure is reported (file, line, column, field)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from common.loading import LoadError, iter_jsonl, load_json, load_mapping, load_model


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    n: int
    xs: list[float] = []


def test_jsonl_names_the_line_and_skips_blank_and_comment_lines(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_text('{"n": 1}\n\n# note\n{"n": 2}\n{"n": NaN}\n')
    with pytest.raises(LoadError, match=r"a\.jsonl:5: NaN is not a number"):
        list(iter_jsonl(f, comments=True))
    f.write_text('{"n": 1}\n{"n": \n')
    with pytest.raises(LoadError, match=r"a\.jsonl:2: not valid JSON"):
        list(iter_jsonl(f))


def test_utf8_with_bom_reads_and_bad_bytes_name_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_bytes(b'\xef\xbb\xbf{"n": 1}')
    assert load_json(f) == {"n": 1}
    f.write_bytes(b'{\n  "n": "\xc3"}')
    with pytest.raises(LoadError, match=r"a\.json:2: not UTF-8 text \(byte 0xc3 at column 9\)"):
        load_json(f)


def test_yaml_names_the_line_and_the_field(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("n: 1\nxs: [1, 2\n")
    with pytest.raises(LoadError, match=r"s\.yaml:\d+: not valid YAML"):
        load_mapping(f)
    f.write_text("n: 1\nxs: [1, .inf]\n")
    with pytest.raises(LoadError, match=r"s\.yaml: inf is not a finite number"):
        load_model(f, _M)
    f.write_text("n: 1\nxs: [1, x]\n")
    with pytest.raises(LoadError, match=r"s\.yaml: field 'xs\[1\]'"):
        load_model(f, _M)
