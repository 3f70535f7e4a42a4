"""Secrets never leave the page, end to end: MiniWoB++ login tasks run by the teacher and by a
served student (SmolLM2 + LoRA behind the embedded OpenAI-compatible server), exported to SFT
records, shown by the trace viewer and copied into an audit study. Every text artefact, page and
database they produce is searched for each password in every encoding a writer could use.

Screenshots are left out on purpose: they picture the page, which shows the password in its
own instruction; the promise is about text that leaves the page (docs/reliability.md).
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agent_runtime.browser.launch import CHROMIUM_PATH, BrowserSession
from agent_runtime.runner.batch import run_batch
from agent_runtime.runner.config import RunConfig
from agent_runtime.runner.factories import resources_for
from agent_runtime.runner.traces import iter_rows, trace_files
from contracts.secrets import MASK
from contracts.step_row import StepRow
from envs.miniwob.contracts import miniwob_contracts
from envs.miniwob.task import MiniWoBTask

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM_PATH.exists(), reason=f"{CHROMIUM_PATH} missing"),
]

# Seeds whose passwords are five mixed-case characters: no chance match in hashes or times.
CASES = {"login-user": [4, 6], "enter-password": [5, 9]}
BINARY = {".png", ".jpg", ".jpeg", ".webp"}


def _passwords() -> list[str]:
    out = []
    with BrowserSession() as s:
        for task, seeds in CASES.items():
            t = MiniWoBTask(task)
            out += [t.setup(s.page, seed).secrets["password"] for seed in seeds]
    assert all(len(p) >= 5 for p in out), out
    return out


def _forms(secret: str) -> set[str]:
    return {
        secret,
        quote(secret, safe=""),
        quote_plus(secret),
        json.dumps(secret)[1:-1],
        html.escape(secret),
        "".join(f"\\u{ord(c):04x}" for c in secret),
    }


def assert_no_secret(where: str, data: bytes | str, secrets: list[str]) -> None:
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    for s in secrets:
        for form in _forms(s):
            assert form not in text, f"{where} holds a password ({form!r})"


def assert_tree_clean(root: Path, secrets: list[str]) -> int:
    n = 0
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix.lower() not in BINARY:
            assert_no_secret(str(p), p.read_bytes(), secrets)
            n += 1
    return n


def _contracts():
    return [c for task, seeds in CASES.items() for c in miniwob_contracts([task], seeds)]


@pytest.fixture(scope="module")
def passwords() -> list[str]:
    return _passwords()


@pytest.fixture(scope="module")
def teacher_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("secret-runs") / "teacher"
    contracts = _contracts()
    cfg = RunConfig()
    outs = run_batch(contracts, out, cfg, resources=resources_for(cfg, contracts), progress=False)
    assert all(o.success for o in outs), [(o.rollout_id, o.terminal) for o in outs]
    return out


def _steps(run: Path) -> list[StepRow]:
    return [r for p in trace_files(run) for _, r, _ in iter_rows(p) if isinstance(r, StepRow)]


def test_teacher_logs_in_with_secrets_that_never_leave_the_page(teacher_run, passwords):
    steps = _steps(teacher_run)
    typed = [s for s in steps if s.action and s.action.action.type == "type"]
    # The run succeeded (the fixture) by typing references; the fields read back as the mask.
    assert typed and all(s.action.action.text.startswith("{{secret:") for s in typed[1::2])
    filled = [el.value for s in steps for el in s.observation.labels if el.input_type == "password"]
    assert MASK in filled and set(filled) <= {MASK, ""}
    assert any("{{secret:password}}" in s.observation.page_text for s in steps)
    assert assert_tree_clean(teacher_run, passwords) >= 5


def _viewer_pages(runs: list[Path]) -> dict[str, str]:
    from evals.viewer.app import create_app

    pages = {}
    with TestClient(create_app(runs), base_url="http://127.0.0.1") as client:
        home = client.get("/")
        assert home.status_code == 200
        pages["/"] = home.text
        for link in sorted(set(re.findall(r'href="(/run/\d+/rollout/[^"#?]+)', home.text))):
            r = client.get(link)
            assert r.status_code == 200, link
            pages[link] = r.text
    assert len(pages) > len(runs)
    return pages


def _audit(arms: tuple[Path, Path], tmp: Path, secrets: list[str]) -> None:
    from evals.audit.app import create_app
    from pathwise.cli import app as cli

    study = tmp / "study.sqlite"
    args = ["audit", "create", "--arms", str(arms[0]), str(arms[1]), "--out", str(study)]
    r = CliRunner().invoke(cli, [*args, "--pairs", "2", "--anchors", "0", "--raters", "2"])
    assert r.exit_code == 0, r.output
    assert_no_secret(str(study), study.read_bytes(), secrets)
    with sqlite3.connect(study) as db:
        for (sql,) in db.execute("select sql from sqlite_master where type='table'"):
            assert_no_secret("schema", sql or "", secrets)
        for (name,) in db.execute("select name from sqlite_master where type='table'"):
            for row in db.execute(f"select * from {name}"):
                assert_no_secret(f"{study}:{name}", repr(row), secrets)
    with TestClient(create_app(study), base_url="http://127.0.0.1") as client:
        r = client.post("/signin", data={"name": "Ada"}, follow_redirects=True)
        assert r.status_code == 200 and "/pair/" in str(r.url)
        for pos in (1, 2):
            page = client.get(f"/pair/{pos}")
            assert page.status_code == 200 and "astep" in page.text
            assert_no_secret(f"audit /pair/{pos}", page.text, secrets)


class RecordingStudent:
    """A tiny random model served over HTTP by the embedded backend, recording every prompt it is
    sent: what it answers does not matter to these tests, what it is sent does."""

    def __init__(self, tmp: Path):
        from base_models.tiny import build_text
        from serving.embedded import EmbeddedBackend
        from serving.embedded_api.server import EmbeddedServer

        backend = EmbeddedBackend(build_text(tmp / "tiny"), base_name="tiny", threads=1)
        self.prompts: list[str] = []
        generate = backend.generate  # what the HTTP API calls for every request

        def recording_generate(messages, *a, **kw):
            self.prompts.append(json.dumps(messages, ensure_ascii=False))
            return generate(messages, *a, **kw)

        backend.generate = recording_generate  # type: ignore[method-assign]
        self.server = EmbeddedServer(backend)

    def __enter__(self) -> dict:
        srv = self.server.__enter__()
        return {"kind": "endpoint", "endpoint": {"url": srv.base_url, "model": "tiny"}}

    def __exit__(self, *exc) -> None:
        self.server.__exit__(*exc)


@pytest.mark.train
def test_student_run_export_viewer_and_audit_hold_no_secret(teacher_run, passwords, tmp_path):
    pytest.importorskip("transformers", reason="needs the [train] extra")
    from data_export.middle.export import SFTExportConfig, export_sft

    student = tmp_path / "student"
    contracts = _contracts()
    recorder = RecordingStudent(tmp_path)
    with recorder as middle:
        cfg = RunConfig.model_validate({"step_cap": 3, "retries": 0, "middle": middle})
        outs = run_batch(
            contracts, student, cfg, resources=resources_for(cfg, contracts), progress=False
        )
    prompts = recorder.prompts
    assert len(outs) == len(contracts)
    steps = _steps(student)
    assert steps and all(s.middle_raw for s in steps if not s.top.is_terminal)
    assert len(prompts) >= len(contracts)
    # The student was asked to type references only: no prompt names a password.
    assert any("{{secret:password}}" in p for p in prompts)
    for i, p in enumerate(prompts):
        assert_no_secret(f"prompt {i}", p, passwords)
    assert_tree_clean(student, passwords)

    dataset = tmp_path / "sft"
    export_sft(SFTExportConfig(traces=teacher_run, out=dataset, images=False, eval_fraction=0.25))
    assert assert_tree_clean(dataset, passwords) >= 2

    for where, text in _viewer_pages([teacher_run, student]).items():
        assert_no_secret(f"viewer {where}", text, passwords)
    _audit((student, teacher_run), tmp_path, passwords)


@pytest.mark.train
def test_contract_site_secret_stays_on_the_page(tmp_path):
    """A contract site run where the contract's secret store holds a value every page shows
    (the shop's name): the teacher still answers, a served student is never sent it, and neither
    the runs, the export, the viewer (given the contract file) nor an audit study holds it."""
    from contracts.intent import IntentContract, load_contracts
    from data_export.middle.export import SFTExportConfig, export_sft
    from envs.sites.pairing import world_contracts
    from envs.sites.world import generate_world

    world = generate_world()
    base = next(c for c in world_contracts(world) if c.contract_id == "shop-01/explicit_control")
    secret = "Northwind"
    data = base.model_dump() | {"secrets": {"store": secret}}
    contract = IntentContract.model_validate(data)
    cfile = tmp_path / "contracts.jsonl"
    cfile.write_text(contract.to_jsonl_line() + "\n")
    assert secret in cfile.read_text()  # the user's own file holds the store, nothing else
    loaded = load_contracts(cfile)[0]
    assert loaded.secret_store().resolve("{{secret:store}}") == secret
    assert secret not in loaded.model_dump_json() and loaded.sha256() == contract.sha256()

    arms = [tmp_path / "teacher", tmp_path / "student"]
    cfg = RunConfig(screenshots=False)
    outs = run_batch([loaded], arms[0], cfg, resources=resources_for(cfg, [loaded]), progress=False)
    assert outs[0].terminal == "answer" and outs[0].success, outs[0]
    recorder = RecordingStudent(tmp_path)
    with recorder as middle:
        cfg = RunConfig.model_validate({"screenshots": False, "step_cap": 3, "middle": middle})
        run_batch([loaded], arms[1], cfg, resources=resources_for(cfg, [loaded]), progress=False)
    # The pages it acted on showed the store (asserted below); its prompts carry labels only.
    assert recorder.prompts
    for i, p in enumerate(recorder.prompts):
        assert_no_secret(f"student prompt {i}", p, [secret])
    for run in arms:
        steps = _steps(run)
        assert any("{{secret:store}}" in s.observation.page_text for s in steps)
        assert_tree_clean(run, [secret])
    dataset = tmp_path / "sft"
    export_sft(SFTExportConfig(traces=arms[0], out=dataset, images=False, eval_fraction=0.5))
    assert_tree_clean(dataset, [secret])
    from evals.viewer.app import create_app

    with TestClient(create_app(arms, [cfile]), base_url="http://127.0.0.1") as client:
        home = client.get("/")
        for link in set(re.findall(r'href="(/run/\d+/rollout/[^"#?]+)', home.text)):
            page = client.get(link)
            assert page.status_code == 200 and "Northwind" not in page.text
            assert "mirrorless" in page.text.lower()  # the contract view is there
    from pathwise.cli import app as cli

    study = tmp_path / "study.sqlite"
    args = ["audit", "create", "--arms", str(arms[0]), str(arms[1]), "--out", str(study)]
    sizes = ["--pairs", "1", "--anchors", "0", "--raters", "2", "--contracts", str(cfile)]
    r = CliRunner().invoke(cli, [*args, *sizes])
    assert r.exit_code == 0, r.output
    assert_no_secret(str(study), study.read_bytes(), [secret])


def test_a_card_number_in_a_contracts_request_is_refused_at_the_boundary():
    from pydantic import ValidationError

    from envs.miniwob.contracts import miniwob_contract

    data = miniwob_contract("click-button", 1).model_dump()
    with pytest.raises(ValidationError, match="put it in `secrets`"):
        type(miniwob_contract("click-button", 1)).model_validate(
            data | {"request": "Pay with 4111 1111 1111 1111 please."}
        )
    ok = data | {"request": "Pay with {{secret:card}}.", "secrets": {"card": "4111111111111111"}}
    assert (
        "4111" not in type(miniwob_contract("click-button", 1)).model_validate(ok).model_dump_json()
    )
