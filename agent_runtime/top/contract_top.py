"""Deterministic contract top for the contract sites: WebRider Eq. 2, Table 60 top state, Table 15.

It keeps the contract state (intention, active constraints, missing evidence, blockers, expected
observation) and alone decides answer / ask / stop / block. It reads only the contract and what
pages show: results lists, "Label: value" facts, the search and maps providers. Its persona policy
changes the route the way Table 15's criteria say (explorers compare two candidates, trust-first
opens the seller page, speed stops at the first sufficient candidate, uncertainty-averse asks when
a blocker stays open, the privacy guardian never signs in or types personal data), and it
withholds the answer until every evidence obligation is covered for the item it recommends.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from agent_runtime.top.contract_answer import compose_answer
from agent_runtime.top.contract_reading import Candidate, check, number, overlap, shares_entity
from agent_runtime.top.page_reading import Result, facts_in, item_no, map_blocks, results_in
from contracts.command import Command, Target, quoted_strings
from contracts.history import RecentHistory
from contracts.intent import IntentContract
from contracts.observation import Observation
from contracts.top_state import EvidenceItem, TopState

DISMISS = ("No thanks", "Close", "Dismiss")
BROWSE_PERSONAS = {"accessibility_seeker", "convenience_novice", "deal_hunter", "budget_optimizer"}
PRICE_SORT_PERSONAS = {"deal_hunter", "budget_optimizer"}
# A site sort that orders results by a compare task's criterion (exact: the first valid one is
# best), or by a lower bound of it (the nightly rate bounds a stay's total: pruning ends the scan).
CRITERION_SORTS = {
    ("Rating", "argmax"): ("Highest rated first", True),
    ("Price", "argmin"): ("Lowest price first", True),
    ("Total for", "argmin"): ("Lowest price first", False),
}
MAX_BACKS = 4


class ContractTop:
    """The scripted teacher's top layer on contract sites (with HeuristicMiddle: the teacher)."""

    name = "contract"

    def start(self, contract: IntentContract, goal: str) -> None:
        c = self.contract = contract
        self.goal = goal
        self.persona = c.persona.name
        self.t = 0
        self.site_title = ""
        self.results_url = ""
        self.return_cmd: Command | None = None  # one step back to results page 1
        self.category_cmd: Command | None = None
        self.entered = self.sorted = self.exhausted = self.by_criterion = self.maps_entry = False
        self.mapped = False
        self.backs = 0
        self.cands: dict[str, Candidate] = {}
        self.by_title: dict[str, str] = {}
        self.map_facts: dict[str, dict[str, str]] = {}
        # Maps pages seen, by query: (places listed, farthest distance listed).
        self.maps_seen: dict[str, tuple[int, float]] = {}
        self.related: dict[str, list[dict[str, str]]] = {}
        self.clicked: set[str] = set()
        self.screened_out: set[str] = set()
        self.current: str | None = None
        self.ledger: list[EvidenceItem] = []
        self.ask_reason = ""
        self.subject = next(iter(quoted_strings(c.request)), None)
        hard = [h.inspect for h in c.hard_constraints if h.inspect]
        self.attrs = [i for i in hard if i.kind == "item_attr"]
        self.best = next((i for i in hard if i.kind == "item_best"), None)
        self.need = (
            2
            if (
                any(o.min_items > 1 for o in c.evidence_obligations)
                or c.answer_schema.min_alternatives
            )
            else 1
        )
        self.via = {o.page: o.via for o in c.evidence_obligations if o.page and o.via}
        self.via.update({b.page: b.via for b in c.blocker_checks if b.via})
        key = (self.best.field or "", self.best.op) if self.best else None
        if key and key[0].startswith("Total for"):
            key = ("Total for", key[1])
        self.sort_link, self.sort_exact = (
            CRITERION_SORTS.get(key, (None, False)) if key else (None, False)
        )

    def step(self, observation: Observation, history: RecentHistory) -> TopState:
        self.t += 1
        if self.t == 1:
            self.site_title = observation.title
        if observation.access_signal is not None:
            sig = observation.access_signal.value
            return self._state(
                "block",
                f"External access interruption ({sig}); never bypassed.",
                blockers=[f"external_access:{sig}"],
            )
        dismiss = next(
            (el.text for el in observation.labels if el.role == "button" and el.text in DISMISS),
            None,
        )
        if dismiss:
            return self._browse(
                Command("click", Target(dismiss, "button")), "Dismiss the pop-up first."
            )
        if not observation.labels and not observation.page_text.strip():
            # A blank page is one still loading, not an empty result: look again.
            return self._browse(Command("wait"), "Let the page load.")
        self._read(observation)
        return self._decide() or self._navigate(observation)

    # -- reading -----------------------------------------------------------------------------
    def _read(self, obs: Observation) -> None:
        path = urlparse(obs.url).path
        text = obs.page_text
        if path.startswith("/item/") and (iid := item_no(text)):
            title = obs.title.rsplit(" - ", 1)[0] if " - " in obs.title else iid
            cand = self.cands.setdefault(iid, Candidate(iid, title))
            cand.pages["item"] = facts_in(text)
            if title in self.map_facts:
                cand.pages.setdefault("map", self.map_facts[title])
            for kind, seen in self.related.items():
                hit = next((f for f in seen if shares_entity(f, cand.pages["item"])), None)
                if hit is not None:  # the same seller (or product) page, seen for another item
                    cand.pages.setdefault(kind, hit)
            self.by_title[title] = iid
            self.current = iid
        elif path.startswith("/p/") and self.current:
            kind = path.split("/")[2]
            facts = facts_in(text)
            self.cands[self.current].pages[kind] = facts
            self.related.setdefault(kind, []).append(facts)
        elif path == "/maps":
            listed = results_in(text)
            for r in listed:
                self.map_facts[r.title] = r.facts
            q = parse_qs(urlparse(obs.url).query)
            near = (q.get("near") or [""])[0]
            far = [number(r.facts.get(f"Distance from {near}", "")) or 0.0 for r in listed]
            what = (q.get("q") or [""])[0].removesuffix(f" {near}")
            self.maps_seen[what] = (len(listed), max(far, default=0.0))
            for t, facts in map_blocks(text, list(self.by_title)).items():
                self.cands[self.by_title[t]].pages["map"] = facts

        self._record_evidence(obs)

    def _record_evidence(self, obs: Observation) -> None:
        cand = self.cands.get(self.current) if self.current else None
        if cand is None:
            return
        done = {(e.obligation_id, e.excerpt.split(" ", 1)[0]) for e in self.ledger}
        for o in self.contract.evidence_obligations:
            value = cand.pages.get(o.page or "item", {}).get(o.fact or "")
            if o.fact and value is not None and (o.id, cand.id) not in done:
                self.ledger.append(
                    EvidenceItem(
                        obligation_id=o.id,
                        step_index=self.t - 1,
                        url=obs.url,
                        excerpt=f"{cand.id} {o.fact}: {value}",
                    )
                )

    # -- judging -----------------------------------------------------------------------------
    def _needed_pages(self) -> list[str]:
        c = self.contract
        pages = [o.page or "item" for o in c.evidence_obligations] + ["item"]
        if self.subject is None:
            pages += [i.page for i in self.attrs] + [b.page for b in c.blocker_checks]
            pages += [self.best.page] if self.best else []
        return list(dict.fromkeys(pages))

    def _judge(self, cand: Candidate) -> str | None:
        """'rejected', 'accepted', 'ask', or None while a needed page is still unseen."""
        if self.subject is None:
            for ins in self.attrs:
                if ins.page not in cand.pages:
                    continue
                shown = cand.pages[ins.page].get(ins.field or "")
                if shown is None or not check(ins, shown):  # unshown cannot be verified
                    cand.why = f"{ins.field} is {shown or 'not shown'}"
                    return "rejected"
            for b in self.contract.blocker_checks:
                shown = cand.pages.get(b.page, {}).get(b.fact)
                if shown is not None and shown in b.open_values:
                    if self.persona == "uncertainty_averse":
                        self.ask_reason = f"{b.text} ({b.fact}: {shown})"
                        return "ask"
                    cand.why = b.text
                    return "rejected"
        if any(p not in cand.pages for p in self._needed_pages()):
            return None
        return "accepted"

    def _decide(self) -> TopState | None:
        cur = self.cands.get(self.current) if self.current else None
        if cur is not None and cur.status == "open":
            verdict = self._judge(cur)
            if verdict == "ask":
                return self._state(
                    "ask",
                    f"A material blocker stays open: {self.ask_reason}",
                    blockers=[self.ask_reason],
                )
            if verdict in ("accepted", "rejected"):
                cur.status = verdict
        accepted = [cd for cd in self.cands.values() if cd.status == "accepted"]
        if not accepted:
            return None
        if self.subject is not None:
            return self._answer(accepted[0], [])
        settled = self.best is None or self.exhausted or self.by_criterion
        if (len(accepted) >= self.need and settled) or self.exhausted:
            if self.best is not None and not self.by_criterion:
                b = self.best
                accepted.sort(
                    key=lambda cd: number(cd.pages.get(b.page, {}).get(b.field or "", "")) or 0.0,
                    reverse=b.op == "argmax",
                )
            return self._answer(accepted[0], accepted[1:])
        return None

    def _answer(self, chosen: Candidate, others: list[Candidate]) -> TopState | None:
        if self._missing(chosen):  # never answer before every obligation is covered
            return None
        text = compose_answer(self.contract, chosen, others)
        return self._state("answer", "Every evidence obligation is covered.", answer=text)

    def _missing(self, chosen: Candidate | None = None) -> list[str]:
        chosen = chosen or (self.cands.get(self.current) if self.current else None)
        seen_items = sum(1 for cd in self.cands.values() if "item" in cd.pages)
        out = []
        for o in self.contract.evidence_obligations:
            if o.min_items > 1:
                ok = seen_items >= o.min_items
            else:
                ok = chosen is not None and (o.fact or "") in chosen.pages.get(o.page or "item", {})
            if not ok:
                out.append(o.id)
        return out

    # -- navigating ----------------------------------------------------------------------------
    def _navigate(self, obs: Observation) -> TopState:
        c = self.contract
        path = urlparse(obs.url).path
        cur = self.cands.get(self.current) if self.current else None
        if cur is not None and cur.status == "open":
            for page in self._needed_pages():
                if page in cur.pages:
                    continue
                if page == "map" and c.geographic:
                    # One map of the category near the place covers this and later candidates.
                    what = cur.pages.get("item", {}).get("Category", cur.title)
                    if what in self.maps_seen:
                        if self._beyond_map(what) or cur.title in self.maps_seen:
                            cur.pages["map"] = {}  # not on the map, or farther than it reaches
                            continue
                        what = cur.title  # the category map stopped short: ask for this place
                    return self._browse(
                        Command("maps", payload=what, near=c.location),
                        f"Check {cur.title} on the map.",
                    )
                if path.startswith("/item/") and (via := self.via.get(page)):
                    return self._browse(
                        Command("click", Target(via, "link")), f"Open {via} of {cur.title}."
                    )
                if not path.startswith("/item/"):
                    return self._back("Return to the candidate's page.")
            cur.status = "accepted" if self._judge(cur) == "accepted" else "rejected"
            if (decision := self._decide()) is not None:
                return decision
        # A maps page is a results list only on the map-first route; otherwise it is a check.
        maps_list = path == "/maps" and self.maps_entry
        listing = path in ("/search", "/browse") or path.startswith("/c/") or maps_list
        results = results_in(obs.page_text) if listing else []
        if listing and (results or "Next page" in obs.page_text):
            return self._pick(obs, results)
        if path == "/maps" and self.mapped and not self.maps_entry and not self.results_url:
            self.entered = False  # distances noted; now the site's own sorted listing
            return self._back("Back to the site with the distances noted.")
        if not self.entered:
            return self._enter(obs)
        if self.results_url and obs.url != self.results_url and self.backs < MAX_BACKS:
            if any(el.text == "Back to results" for el in obs.labels):
                self.backs += 1
                return self._browse(
                    Command("click", Target("Back to results", "link")), "Back to the results."
                )
            if self.return_cmd is not None and self.backs == 0 and not path.startswith("/item/"):
                self.backs += 1
                return self._browse(self.return_cmd, "Back to the results.")
            return self._back("Back to the results list.")
        self.exhausted = True
        return self._decide() or self._state(
            "stop", "Nothing left to inspect.", blockers=["no_valid_candidate"]
        )

    def _enter(self, obs: Observation) -> TopState:
        c = self.contract
        self.entered = True
        links = [el.text for el in obs.labels if el.role == "link" and el.text]
        category = max(links, key=lambda t: overlap(t, c.request), default=None)
        if category is not None and overlap(category, c.request) == 0:
            category = None
        if (
            self.persona == "local_context_planner"
            and c.geographic
            and self.subject is None
            and not self.mapped
        ):
            cmd = Command("maps", payload=category or c.request, near=c.location)
            self.mapped = True
            # With a site sort by the compare criterion, the map only supplies distances first.
            self.maps_entry = not self.sort_link
            return self._browse(cmd, "Look for places on the map.")
        if (
            self.subject is None
            and category
            and (self.persona in BROWSE_PERSONAS or self.sort_link)
        ):
            self.category_cmd = Command("click", Target(category, "link"))
            return self._browse(self.category_cmd, "Browse the matching category.")
        return self._browse(
            Command("search", payload=self.subject or c.request), "Search for candidates."
        )

    def _pick(self, obs: Observation, results: list[Result]) -> TopState:
        path = urlparse(obs.url).path
        query = parse_qs(urlparse(obs.url).query)
        visible = {el.text for el in obs.labels if el.role == "link"}
        if path.startswith("/c/") and not self.sorted:
            want = self.sort_link or (
                "Lowest price first" if self.persona in PRICE_SORT_PERSONAS else None
            )
            if want and want in obs.page_text:
                self.sorted = True
                self.by_criterion = want == self.sort_link and self.sort_exact
                return self._browse(Command("click", Target(want, "link")), f"Sort: {want}.")
        self.results_url = obs.url
        self.backs = 0
        if "page" not in query and "sort" not in query:
            self.return_cmd = (
                Command("search", payload=query["q"][0])
                if path == "/search" and query.get("q")
                else self.category_cmd
                if path.startswith("/c/")
                else None
            )
        else:
            self.return_cmd = None
        for r in results:
            if r.title in self.clicked or r.title in self.screened_out:
                continue
            if r.source and self.site_title and not r.source.startswith(self.site_title):
                continue
            if self.subject is not None:
                if r.title != self.subject:
                    continue
            elif self._screen_out(r):
                self.screened_out.add(r.title)
                continue
            if r.title not in visible:
                return self._browse(
                    Command("scroll", direction="down"), "Scroll to the next candidate."
                )
            self.clicked.add(r.title)
            self.current = None
            return self._browse(Command("click", Target(r.title, "link")), f"Inspect {r.title}.")
        accepted = any(cd.status == "accepted" for cd in self.cands.values())
        if results and accepted and not any(r.title in self.clicked for r in results):
            # A whole page where nothing can fit: the ranking has run past the candidates.
            self.exhausted = True
        elif "Next page" in visible:
            return self._browse(
                Command("click", Target("Next page", "link")), "Next page of results."
            )
        if "Next page" in obs.page_text:
            return self._browse(Command("scroll", direction="down"), "Scroll to the page links.")
        self.exhausted = True
        return self._decide() or self._state(
            "stop", "No candidate satisfies every hard constraint.", blockers=["no_valid_candidate"]
        )

    def _screen_out(self, r: Result) -> bool:
        """Skip a result whose listing already shows a violated constraint."""
        c = self.contract
        if any(i.field in r.facts and not check(i, r.facts[i.field]) for i in self.attrs):
            return True
        floor = self._total_floor(r)
        if floor is not None:
            # "Total for N nights" is at least N x the nightly rate: fees only add to it.
            caps = [
                float(i.value)
                for i in self.attrs
                if i.field
                and i.field.startswith("Total for")
                and i.op == "max"
                and i.value is not None
            ]
            if any(floor > cap for cap in caps):
                return True
            b = self.best
            if b is not None and b.op == "argmin" and (b.field or "").startswith("Total for"):
                known = [
                    number(cd.pages.get(b.page, {}).get(b.field or "", ""))
                    for cd in self.cands.values()
                    if cd.status == "accepted"
                ]
                known_totals = [k for k in known if k is not None]
                if known_totals and floor >= min(known_totals):
                    return True
        # Locality: a place listed in another neighbourhood is not "within N km" of this one.
        hood = r.facts.get("Neighborhood")
        return bool(c.geographic and c.location and hood and hood != c.location)

    def _total_floor(self, r: Result) -> float | None:
        fields = [i.field for i in self.attrs] + ([self.best.field] if self.best else [])
        total = next((f for f in fields if f and f.startswith("Total for")), None)
        nights = number(total.removeprefix("Total for")) if total else None
        rate = number(r.facts.get("Nightly rate", ""))
        return nights * rate if nights and rate else None

    def _beyond_map(self, what: str) -> bool:
        """A map sorted by distance that already lists places farther than the task allows: a
        place it does not list is farther still."""
        _, farthest = self.maps_seen[what]
        limit = next(
            (
                float(i.value)
                for i in self.attrs
                if i.page == "map" and i.op == "max" and i.value is not None
            ),
            None,
        )
        return limit is not None and farthest > limit

    def _back(self, why: str) -> TopState:
        self.backs += 1
        return self._browse(Command("back"), why)

    # -- state ---------------------------------------------------------------------------------
    def _state(
        self,
        decision: str,
        intention: str,
        blockers: list[str] | None = None,
        answer: str | None = None,
    ) -> TopState:
        c = self.contract
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
        expect = {
            "search": "A results list for the query.",
            "maps": "Map entries with distances.",
            "back": "The previous page.",
        }.get(cmd.verb, "The page the command opens.")
        return st.model_copy(update={"command": cmd.render(), "expected_observation": expect})
