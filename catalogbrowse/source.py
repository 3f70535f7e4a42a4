"""Precommitted source access, agent side: KnowPlan, Algorithm 1 lines 11-12 (Precommit, Execute).

Every open is sealed at the gate (action, hash of the agent's state, time) before the GET that
presents the seal; the gate answers 403 to any GET without one. Model calls are sealed too, so
both budgets are paid at the same gate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from envs.catalog.receipts import Receipt, canonical

SEAL_HEADER = "X-Seal"


class BudgetExhausted(RuntimeError):
    pass


@dataclass
class Revealed:
    url: str
    status: int
    body: bytes
    content_type: str
    receipt_hash: str


def state_hash(summary: dict) -> str:
    return hashlib.sha256(canonical(summary).encode()).hexdigest()


class GateClient:
    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout)
        self.info = self.http.get("/_gate/info").raise_for_status().json()

    def close(self) -> None:
        self.http.close()

    def commit(self, action: dict, state: str) -> Receipt:
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        r = self.http.post("/_gate/commit", json={"action": action, "state": state, "time": now})
        if r.status_code == 429:
            raise BudgetExhausted(r.json().get("error", "budget exhausted"))
        r.raise_for_status()
        return Receipt.model_validate(r.json())

    def open(self, url: str, state: str) -> Revealed:
        seal = self.commit({"kind": "open", "url": url}, state).seal
        r = self.http.get(url, headers={SEAL_HEADER: seal})
        if r.status_code == 403 and r.headers.get("content-type", "").startswith(
            "application/json"
        ):
            raise PermissionError(r.json().get("error"))
        return Revealed(
            url,
            r.status_code,
            r.content,
            r.headers.get("content-type", ""),
            r.headers.get("X-Receipt", ""),
        )

    def seal_model_call(self, span: str, attempt: int, state: str) -> Receipt:
        digest = hashlib.sha256(span.encode()).hexdigest()
        return self.commit({"kind": "model", "span_sha256": digest, "attempt": attempt}, state)

    def receipts(self) -> list[Receipt]:
        return [Receipt.model_validate(x) for x in self.http.get("/_gate/receipts").json()]
