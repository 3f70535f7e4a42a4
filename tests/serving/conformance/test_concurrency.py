"""16 requests at once are all answered, none mixed up: each answer equals the one its own
prompt gets alone, at temperature 0 (float32 on both servers, so batching changes no token)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.serving.conformance.conftest import MARKS

pytestmark = MARKS


def test_sixteen_at_once(client):
    prompts = [f"Request {i}: which course follows MATH {100 + 7 * i}?" for i in range(16)]

    def ask(text: str) -> str:
        r = client.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": text}],
            temperature=0, max_tokens=16,
        )  # fmt: skip
        return r.choices[0].message.content

    alone = [ask(p) for p in prompts]
    assert len(set(alone)) > 8  # the prompts do lead to different answers
    with ThreadPoolExecutor(max_workers=16) as pool:
        together = list(pool.map(ask, prompts))
    assert together == alone
