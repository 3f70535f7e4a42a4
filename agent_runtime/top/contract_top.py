"""Deterministic contract top for the contract sites: WebRider Eq. 2, Table 60 top state, Table 15.

It keeps the contract state (intention, active constraints, missing evidence, blockers, expected
observation) and alone decides answer / ask / stop / block. It reads only the contract and what
pages show: results lists, "Label: value" facts, the search and maps providers. Its persona policy
changes the route the way Table 15's criteria say (explorers compare two candidates, trust-first
opens the seller page, speed stops at the first sufficient candidate, uncertainty-averse asks when
a blocker stays open, the privacy guardian never signs in or types personal data), and it
withholds the answer until every evidence obligation is covered.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlparse

from agent_runtime.contracts.history import RecentHistory
from agent_runtime.contracts.intent import Inspect, IntentContract
from agent_runtime.contracts.observation import Observation
from agent_runtime.contracts.top_state import EvidenceItem, TopState
from agent_runtime.top.commands import Command, Target, quoted_strings
from agent_runtime.top.page_reading import facts_in, item_no, map_blocks, results_in

DISMISS = ("No thanks", "Close", "Dismiss")
BROWSE_PERSONAS = {"accessibility_seeker", "convenience_novice", "deal_hunter", "budget_optimizer"}
PRICE_SORT_PERSONAS = {"deal_hunter", "budget_optimizer"}
MAX_BACKS = 4
_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _number(text: str) -> float | None:
    m = _NUM.search(text or "")
    return float(m.group(0).replace(",", "")) if m else None


def check(ins: Inspect, shown: str) -> bool:
    if ins.op == "eq":
        return shown.strip().casefold() == str(ins.value).strip().casefold()
    if ins.op == "contains":
        return str(ins.value).casefold() in shown.casefold()
    n = _number(shown)
    if n is None or ins.value is None:
        return False
    return n <= float(ins.value) if ins.op == "max" else n >= float(ins.value)


@dataclass
class Candidate:
    id: str
    title: str
    pages: dict[str, dict[str, str]] = field(default_factory=dict)
    status: str = "open"  # open | accepted | rejected
    why: str = ""


class ContractTop:
    """The scripted teacher's top layer on contract sites (with HeuristicMiddle: the teacher)."""

    name = "contract"

    def __init__(self) -> None:
        self.contract: IntentContract | None = None

    # -- protocol ------------------------------------------------------------------------
    def start(self, contract: IntentContract, goal: str) -> None:
        c = self.contract = contract
        self.goal = goal
        self.persona = c.persona.name
        self.t = 0
        self.site_title = ""
        self.results_url = ""
        self.entered = False
        self.sorted = False
        self.exhausted = False
        self.backs = 0
        self.cands: dict[str, Candidate] = {}
        self.by_title: dict[str, str] = {}
        self.clicked: set[str] = set()
        self.screened_out: set[str] = set()
        self.current: str | None = None
        self.ledger: list[EvidenceItem] = []
        self.ask_reason = ""
        self.subject = next(iter(quoted_strings(c.request)), None)
        self.attrs = [h.inspect for h in c.hard_constraints if h.inspect and h.inspect.kind == "item_attr"]
        self.best = next((h.inspect for h in c.hard_constraints if h.inspect and h.inspect.kind == "item_best"), None)
        need = 1
        if any(o.min_items > 1 for o in c.evidence_obligations) or c.answer_schema.min_alternatives:
            need = 2
        self.need = need
        self.via = {o.page: o.via for o in c.evidence_obligations if o.page and o.via}
        self.via.update({b.page: b.via for b in c.blocker_checks if b.via})

    def step(self, obs: Observation, history: RecentHistory) -> TopState:
        c = self.contract
        assert c is not None
        self.t += 1
        if self.t == 1:
            self.site_title = obs.title
        if obs.access_signal is not None:
            return self._state("block", f"External access interruption ({obs.access_signal.value}); never bypassed.",
                               blockers=[f"external_access:{obs.access_signal.value}"])
        dismiss = next((el.text for el in obs.labels if el.role == "button" and el.text in DISMISS), None)
        if dismiss:
            return self._browse(Command("click", Target(dismiss, "button")), "Dismiss the pop-up first.")
        self._read(obs)
        decision = self._decide(obs)
        if decision is not None:
            return decision
        return self._navigate(obs)

    # -- reading ---------------------------------------------------------------------------
    def _read(self, obs: Observation) -> None:
        path = urlparse(obs.url).path
        text = obs.page_text
        if path.startswith("/item/") and (iid := item_no(text)):
            title = text.splitlines()[0].strip() if text else iid
            facts = facts_in(text)
            cand = self.cands.setdefault(iid, Candidate(iid, self._title_of(obs, iid)))
            cand.pages["item"] = facts
            self.by_title[cand.title] = iid
            self.current = iid
            del title
        elif path.startswith("/p/") and self.current:
            kind = path.split("/")[2]
            self.cands[self.current].pages[kind] = facts_in(text)
        elif path == "/maps":
            titles = [cd.title for cd in self.cands.values()]
            for t, facts in map_blocks(text, titles).items():
                self.cands[self.by_title[t]].pages["map"] = facts
        self._record_evidence(obs)

    def _title_of(self, obs: Observation, iid: str) -> str:
        heading = next((el.text for el in obs.labels if el.role == "heading"), None)
        if heading:
            return heading
        return obs.title.rsplit(" - ", 1)[0] if " - " in obs.title else iid

    def _record_evidence(self, obs: Observation) -> None:
        if self.current is None:
            return
        cand = self.cands[self.current]
        done = {e.obligation_id for e in self.ledger}
        for o in self.contract.evidence_obligations if self.contract else []:
            if o.id in done or o.fact is None:
                continue
            value = cand.pages.get(o.page or "item", {}).get(o.fact)
            if value is not None:
                self.ledger.append(EvidenceItem(obligation_id=o.id, step_index=self.t - 1, url=obs.url,
                                                excerpt=f"{cand.id} {o.fact}: {value}"))

    # -- judging a candidate -----------------------------------------------------------------
    def _needed_pages(self) -> list[str]:
        c = self.contract
        assert c is not None
        pages = [i.page for i in self.attrs] + [o.page or "item" for o in c.evidence_obligations]
        pages += [b.page for b in c.blocker_checks]
        if self.best is not None:
            pages.append(self.best.page)
        if self.subject:
            pages = [o.page or "item" for o in c.evidence_obligations] + ["item"]
        return list(dict.fromkeys(pages))

    def _judge(self, cand: Candidate) -> str | None:
        """'rejected', 'accepted', 'ask', or None while pages are still missing."""
        c = self.contract
        assert c is not None
        if self.subject is None:
            for ins in self.attrs:
                shown = cand.pages.get(ins.page, {}).get(ins.field or "")
                if shown is not None and not check(ins, shown):
                    cand.why = f"{ins.field} is {shown}"
                    return "rejected"
            for b in c.blocker_checks:
                shown = cand.pages.get(b.page, {}).get(b.fact)
                if shown is not None and shown in b.open_values:
                    if self.persona == "uncertainty_averse":
                        self.ask_reason = f"{b.text} ({b.fact}: {shown})"
                        return "ask"
                    cand.why = f"{b.text}"
                    return "rejected"
        if any(p not in cand.pages for p in self._needed_pages()):
            return None
        return "accepted"

    # -- deciding ------------------------------------------------------------------------
    def _decide(self, obs: Observation) -> TopState | None:
        cur = self.cands.get(self.current) if self.current else None
        if cur is not None and cur.status == "open":
            verdict = self._judge(cur)
            if verdict == "ask":
                return self._state("ask", f"A material blocker stays open: {self.ask_reason}",
                                   blockers=[self.ask_reason])
            if verdict in ("accepted", "rejected"):
                cur.status = verdict
        accepted = [cd for cd in self.cands.values() if cd.status == "accepted"]
        if self.subject is not None:
            if accepted:
                return self._answer(accepted[0], [])
            return None
        enough = len(accepted) >= self.need and (self.best is None or self.exhausted)
        if accepted and (enough or self.exhausted):
            if self.best is not None:
                accepted.sort(key=lambda cd: _number(cd.pages.get(self.best.page, {}).get(self.best.field or "", "")) or 0.0,
                              reverse=self.best.op == "argmax")
            return self._answer(accepted[0], accepted[1:])
        if self.exhausted and (cur is None or cur.status != "open"):
            return self._state("stop", "No candidate satisfies every hard constraint.", blockers=["no_valid_candidate"])
        return None

    def _answer(self, chosen: Candidate, others: list[Candidate]) -> TopState:
        c = self.contract
        assert c is not None
        missing = self._missing()
        if missing:  # never answer before every obligation is covered
            return None  # type: ignore[return-value]
        support = [f"{o.fact}: {chosen.pages.get(o.page or 'item', {}).get(o.fact or '', '')}"
                   for o in c.evidence_obligations if o.fact]
        form: dict[str, object] = {"selection": chosen.id, "support": support or [chosen.title]}
        fields = c.answer_schema.fields
        if "value" in fields and c.answer_schema.value_fact:
            page = next((o.page or "item" for o in c.evidence_obligations if o.fact == c.answer_schema.value_fact), "item")
            form["value"] = chosen.pages.get(page, {}).get(c.answer_schema.value_fact, "")
        if "verdict" in fields:
            ok = all(check(h.inspect, chosen.pages.get(h.inspect.page, {}).get(h.inspect.field or "", "\0"))
                     for h in c.claims if h.inspect)
            form["verdict"] = "yes" if ok else "no"
        if "caveat" in fields:
            form["caveat"] = "Preferences not verified: " + "; ".join(c.soft_preferences) if c.soft_preferences else "none"
        if "alternatives" in fields:
            form["alternatives"] = [o.id for o in others]
        return self._state("answer", "Every evidence obligation is covered.", answer=json.dumps(form))

    def _missing(self) -> list[str]:
        c = self.contract
        assert c is not None
        done = {e.obligation_id for e in self.ledger}
        seen_items = len([cd for cd in self.cands.values() if "item" in cd.pages])
        out = []
        for o in c.evidence_obligations:
            if o.min_items > 1:
                if seen_items < o.min_items:
                    out.append(o.id)
            elif o.id not in done:
                out.append(o.id)
        return out

    # -- navigating ------------------------------------------------------------------------
    def _navigate(self, obs: Observation) -> TopState:
        c = self.contract
        assert c is not None
        path = urlparse(obs.url).path
        cur = self.cands.get(self.current) if self.current else None
        if cur is not None and cur.status == "open":
            for page in self._needed_pages():
                if page in cur.pages:
                    continue
                if page == "map":
                    return self._browse(Command("maps", payload=cur.title, near=c.location),
                                        f"Check {cur.title} on the map.")
                if path.startswith("/item/") and (via := self.via.get(page)):
                    return self._browse(Command("click", Target(via, "link")), f"Open {via} of {cur.title}.")
                if not path.startswith("/item/"):
                    return self._back("Return to the candidate's page.")
            # Nothing reachable is missing any more: judge on what is known.
            cur.status = "accepted" if self._judge(cur) == "accepted" else "rejected"
        results = results_in(obs.page_text) if path in ("/search", "/browse") or path.startswith("/c/") else []
        if results:
            self.results_url = obs.url
            self.backs = 0
            return self._pick(obs, results)
        if not self.entered:
            return self._enter(obs)
        if self.results_url and obs.url != self.results_url and self.backs < MAX_BACKS:
            here = urlparse(obs.url).path
            if self.backs == 0 and (here.startswith("/p/") or here == "/maps"):
                q = parse_qs(urlparse(self.results_url).query)
                if urlparse(self.results_url).path == "/search" and "page" not in q and q.get("q"):
                    # Two pages deep: asking the search provider again is one step, not two.
                    self.backs += 1
                    return self._browse(Command("search", payload=q["q"][0]), "Back to the results.")
            return self._back("Back to the results list.")
        self.exhausted = True
        decision = self._decide(obs)
        return decision or self._state("stop", "Nothing left to inspect.", blockers=["no_valid_candidate"])

    def _enter(self, obs: Observation) -> TopState:
        c = self.contract
        assert c is not None
        self.entered = True
        if self.persona == "local_context_planner" and c.geographic and self.subject is None:
            cats = [el.text for el in obs.labels if el.role == "link"]
            what = max(cats, key=lambda t: _overlap(t, c.request), default=c.request)
            return self._browse(Command("maps", payload=what, near=c.location), "Look for places on the map.")
        if self.persona in BROWSE_PERSONAS and self.subject is None:
            links = [el.text for el in obs.labels if el.role == "link" and el.text]
            best = max(links, key=lambda t: _overlap(t, c.request), default=None)
            if best and _overlap(best, c.request) > 0:
                return self._browse(Command("click", Target(best, "link")), "Browse the matching category.")
        query = self.subject or c.request
        return self._browse(Command("search", payload=query), "Search for candidates.")

    def _pick(self, obs: Observation, results: list) -> TopState:
        c = self.contract
        assert c is not None
        if self.persona in PRICE_SORT_PERSONAS and not self.sorted and urlparse(obs.url).path.startswith("/c/"):
            self.sorted = True
            return self._browse(Command("click", Target("Lowest price first", "link")), "Sort by price.")
        visible = {el.text for el in obs.labels if el.role == "link"}
        if c.location:
            # Locality first: candidates whose listing names the task's place come first.
            results = sorted(results, key=lambda r: c.location not in " ".join(r.facts.values()))
        for r in results:
            if r.title in self.clicked or r.title in self.screened_out:
                continue
            if r.source and self.site_title and not r.source.startswith(self.site_title):
                continue
            if self.subject is not None and r.title != self.subject:
                continue
            bad = next((i for i in self.attrs if i.page == "item" and i.field in r.facts and not check(i, r.facts[i.field])), None)
            if bad is not None and self.subject is None:
                self.screened_out.add(r.title)
                continue
            if r.title not in visible:
                return self._browse(Command("scroll", direction="down"), "Scroll to the next candidate.")
            self.clicked.add(r.title)
            self.current = None
            return self._browse(Command("click", Target(r.title, "link")), f"Inspect {r.title}.")
        if "Next page" in visible:
            return self._browse(Command("click", Target("Next page", "link")), "Look at the next page of results.")
        if any(t.startswith("Next page") for t in [ln.strip() for ln in obs.page_text.splitlines()]):
            return self._browse(Command("scroll", direction="down"), "Scroll to the page links.")
        self.exhausted = True
        decision = self._decide(obs)
        return decision or self._state("stop", "No candidate satisfies every hard constraint.",
                                       blockers=["no_valid_candidate"])

    def _back(self, why: str) -> TopState:
        self.backs += 1
        return self._browse(Command("back"), why)

    # -- state -------------------------------------------------------------------------------
    def _state(self, decision: str, intention: str, blockers: list[str] | None = None,
               answer: str | None = None) -> TopState:
        c = self.contract
        assert c is not None
        return TopState(
            intention=intention,
            active_constraints=[h.text for h in c.hard_constraints],
            missing_evidence=self._missing(),
            blockers=blockers or [],
            decision=decision,  # type: ignore[arg-type]
            ledger=list(self.ledger),
            answer=answer,
        )

    def _browse(self, cmd: Command, why: str) -> TopState:
        st = self._state("browse", f"{why} Request: {self.goal}")
        return st.model_copy(update={"command": cmd.render(), "expected_observation": _expect(cmd)})


def _overlap(a: str, b: str) -> int:
    wa = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", a.lower())}
    wb = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", b.lower())}
    return len(wa & wb)


def _expect(cmd: Command) -> str:
    if cmd.verb == "search":
        return "A results list for the query."
    if cmd.verb == "maps":
        return "Map entries with distances."
    if cmd.verb == "back":
        return "The previous page."
    return "The page the command opens."
