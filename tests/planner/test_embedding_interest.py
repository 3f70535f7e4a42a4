"""Embedding direct interest I0 with a tiny sentence-transformer built locally (no download)."""

from __future__ import annotations

import json
import sys

import pytest
import yaml
from typer.testing import CliRunner

from common.embedder import EmbedderError, load_embedder
from pathwise.cli import app
from planner import utility
from planner.documents import CourseRef, save_docs
from planner.embedding import course_text, embedding_interest
from planner.hypergraph import compile_graph
from planner.profile import Request
from planner.utility import course_utility, direct_interest, lexical_interest, load_config
from tests.planner.planner_fixtures import catalog, course

pytest.importorskip("sentence_transformers")

COURSES = [
    ("CS 101", "Introduction to Programming", "Variables, loops and functions in Python."),
    ("CS 201", "Data Structures", "Lists, trees, hash tables and graphs with their algorithms."),
    ("MATH 120", "Calculus One", "Limits, derivatives and integrals of one variable."),
    ("MATH 220", "Linear Algebra", "Vectors, matrices, eigenvalues and linear maps."),
    ("BIO 110", "Cell Biology", "Cells, membranes, proteins and the genetic code."),
    ("ART 130", "Studio Drawing", "Line, shading and perspective from observation."),
]
# Shares no (stemmed) word with any course text above, so the lexical I0 is 0 everywhere.
FOREIGN = "quantum poetry of volcanic oceans"


@pytest.fixture(scope="module")
def graph():
    docs = catalog(
        [course(cid, title=t, description=d) for cid, t, d in COURSES],
        CourseRef(course="CS 101"),
    )
    return compile_graph(docs)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, graph) -> str:
    """Random 2-layer BERT + locally trained WordPiece, saved as a sentence-transformers dir."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = tmp_path_factory.mktemp("tiny_st")
    raw, out = root / "raw", root / "model"
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    corpus = [course_text(graph, c) for c in graph.courses] + [FOREIGN] * 3
    tok.train_from_iterator(
        corpus, trainers.WordPieceTrainer(vocab_size=300, special_tokens=special)
    )
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)]
    )
    hf_tok = BertTokenizerFast(tokenizer_object=tok, model_max_length=64)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(cfg).save_pretrained(raw)
    hf_tok.save_pretrained(raw)
    st = SentenceTransformer(modules=[Transformer(str(raw)), Pooling(32, "mean")], device="cpu")
    st.save(str(out))
    return str(out)


def _embedding_cfg(model: str) -> dict:
    return {**load_config(), "interest": {"backend": "embedding", "model": model}}


def test_default_backend_is_lexical(graph):
    assert load_config()["interest"] == {"backend": "lexical", "model": None}
    req = Request(program="P", interests=["programming"])
    assert direct_interest(graph, req.interests, load_config()) == lexical_interest(
        graph, req.interests
    )


def test_embedding_i0_one_score_per_course_in_range(graph, tiny_model):
    target = course_text(graph, "MATH 220")
    i0 = embedding_interest(graph, ["drawing", target], tiny_model)
    assert set(i0) == set(graph.courses)
    assert all(0.0 <= v <= 1.0 for v in i0.values())
    # Identical text encodes to the identical vector: cosine 1, the top of the scale.
    assert i0["MATH 220"] == pytest.approx(1.0, abs=1e-5)
    assert max(i0, key=i0.get) == "MATH 220"
    assert embedding_interest(graph, [], tiny_model) == dict.fromkeys(graph.courses, 0.0)


def test_embedding_differs_from_lexical(graph, tiny_model):
    lex = lexical_interest(graph, [FOREIGN])
    emb = embedding_interest(graph, [FOREIGN], tiny_model)
    assert set(lex.values()) == {0.0}
    assert any(v > 0.0 for v in emb.values())


def test_config_switch_routes_to_embedding(graph, tiny_model):
    req = Request(program="P", interests=[FOREIGN])
    no_interest = course_utility(graph, Request(program="P"))
    # Lexical I0 sees no shared word, so the interest changes nothing under the default.
    assert course_utility(graph, req) == no_interest
    by_cfg = course_utility(graph, req, _embedding_cfg(tiny_model))
    assert by_cfg != no_interest
    assert all(by_cfg[c] >= no_interest[c] for c in graph.courses)  # I0 >= 0 only adds
    # --interest-model is the same switch as the config block.
    assert course_utility(graph, req, interest_model=tiny_model) == by_cfg


def test_missing_model_names_path_and_config_file(graph, tmp_path, monkeypatch):
    missing = str(tmp_path / "no-such-model")
    req = Request(program="P", interests=["programming"])
    with pytest.raises(EmbedderError) as exc:
        course_utility(graph, req, interest_model=missing)
    assert missing in str(exc.value) and "--interest-model" in str(exc.value)
    # The default config file asking for it: the error names that file.
    monkeypatch.setattr(utility, "load_config", lambda: _embedding_cfg(missing))
    with pytest.raises(EmbedderError) as exc:
        course_utility(graph, req)
    assert missing in str(exc.value) and str(utility.CONFIG) in str(exc.value)
    cfg_file = tmp_path / "utility.yaml"
    cfg_file.write_text(yaml.safe_dump(_embedding_cfg(missing)))
    with pytest.raises(EmbedderError) as exc:
        direct_interest(graph, req.interests, load_config(str(cfg_file)), str(cfg_file))
    assert missing in str(exc.value) and str(cfg_file) in str(exc.value)
    bogus = {**load_config(), "interest": {"backend": "bogus"}}
    with pytest.raises(EmbedderError, match="bogus"):
        direct_interest(graph, req.interests, bogus, str(cfg_file))


def test_missing_package_says_what_to_install(monkeypatch):
    load_embedder.cache_clear()
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import now fails
    with pytest.raises(EmbedderError, match=r"\[embed\]"):
        load_embedder("any")
    load_embedder.cache_clear()


def test_cli_interest_model(tmp_path, tiny_model):
    docs = tmp_path / "docs"
    save_docs(
        catalog(
            [course(cid, title=t, description=d) for cid, t, d in COURSES[:2]],
            CourseRef(course="CS 101"),
        ),
        docs,
    )
    (tmp_path / "req.json").write_text(
        json.dumps({"program": "P", "horizon": 2, "interests": ["trees"]})
    )
    base = ["plan", "--docs", str(docs), "--request", str(tmp_path / "req.json"), "--top-k", "1"]
    runner = CliRunner()
    out = tmp_path / "plan.json"
    res = runner.invoke(app, [*base, "--out", str(out)])
    assert res.exit_code == 0, res.output
    lexical_plan = json.loads(out.read_text())["plans"][0]
    res = runner.invoke(app, [*base, "--out", str(out), "--force", "--interest-model", tiny_model])
    assert res.exit_code == 0, res.output
    embedded_plan = json.loads(out.read_text())["plans"][0]
    assert embedded_plan["certified"]
    # Same courses either way, so a changed utility is the I0 backend at work.
    assert embedded_plan["courses"] == lexical_plan["courses"]
    assert embedded_plan["utility"] != pytest.approx(lexical_plan["utility"])
    missing = str(tmp_path / "absent")
    res = runner.invoke(app, [*base, "--out", str(out), "--force", "--interest-model", missing])
    assert res.exit_code == 2
    assert "absent" in res.output and "--interest-model" in res.output
