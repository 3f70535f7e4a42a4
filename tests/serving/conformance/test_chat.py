"""Plain chat through the official SDK: token budgets, determinism, seeds, stop strings, finish
reasons and usage, with the same observable behaviour on both servers."""

from __future__ import annotations

import pytest

from tests.serving.conformance.conftest import MARKS, PROMPT

pytestmark = MARKS


def ask(client, model="tiny", **kw):
    return client.chat.completions.create(model=model, messages=PROMPT, **kw)


@pytest.mark.parametrize("model", ["tiny", "student"])
def test_plain_chat_and_usage(client, model):
    r = ask(client, model, max_tokens=6, temperature=0)
    choice = r.choices[0]
    assert r.object == "chat.completion" and r.model == model and r.id
    assert choice.message.role == "assistant" and isinstance(choice.message.content, str)
    assert r.usage.prompt_tokens > 10 and 1 <= r.usage.completion_tokens <= 6
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    # A random model rarely ends on its own: it ran to the budget exactly when it says so.
    assert (choice.finish_reason == "length") == (r.usage.completion_tokens == 6)


def test_the_two_servers_count_the_same_prompt(served):
    """Same chat template, same tokenizer: the prompt is the same number of tokens."""
    import openai

    counts = {}
    for name, srv in served.items():
        with openai.OpenAI(base_url=srv.base_url, api_key=srv.api_key, max_retries=0) as cl:
            counts[name] = ask(cl, max_tokens=1, temperature=0).usage.prompt_tokens
    assert len(set(counts.values())) == 1, counts


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_token_budget(client, field):
    for budget in (1, 5):
        r = ask(client, temperature=0, **{field: budget})
        assert r.usage.completion_tokens <= budget
        assert r.choices[0].finish_reason in ("length", "stop")


def test_temperature_zero_is_deterministic(client):
    answers = {ask(client, temperature=0, max_tokens=12).choices[0].message.content for _ in "ab"}
    assert len(answers) == 1


def test_seed_repeats_a_sampled_answer(client):
    def sampled(seed):
        return ask(client, temperature=1.0, seed=seed, max_tokens=12).choices[0].message.content

    assert sampled(7) == sampled(7)
    assert len({sampled(s) for s in range(4)}) > 1  # and the seed does change the answer


def test_top_p_and_top_k(client):
    # top_p tiny / top_k 1 leave one token per step: sampling then equals greedy decoding.
    greedy = ask(client, temperature=0, max_tokens=8).choices[0].message.content
    narrow = ask(client, temperature=1.0, top_p=1e-6, seed=3, max_tokens=8)
    assert narrow.choices[0].message.content == greedy
    top1 = ask(client, temperature=1.0, seed=3, max_tokens=8, extra_body={"top_k": 1})
    assert top1.choices[0].message.content == greedy


def test_stop_string_ends_the_answer_before_it(client):
    whole = ask(client, temperature=0, max_tokens=16).choices[0].message.content
    stop = next(whole[i : i + 2] for i in range(2, len(whole) - 1) if whole[i : i + 2].strip())
    r = ask(client, temperature=0, max_tokens=16, stop=[stop, "never-said"])
    choice = r.choices[0]
    assert choice.message.content == whole[: whole.index(stop)]
    assert choice.finish_reason == "stop"
    assert choice.model_extra.get("stop_reason") == stop  # vLLM names the stop string
    one = ask(client, temperature=0, max_tokens=16, stop=stop)  # a single string works too
    assert one.choices[0].message.content == choice.message.content


def test_finish_reason_stop_when_the_answer_ends(client):
    r = ask(
        client,
        temperature=0,
        max_tokens=20,
        extra_body={"structured_outputs": {"choice": ["yes", "no"]}},
    )
    assert r.choices[0].message.content in ("yes", "no")
    assert r.choices[0].finish_reason == "stop"
    assert r.choices[0].model_extra.get("stop_reason") is None  # ended by EOS, not a string
