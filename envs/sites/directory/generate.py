"""Seeded local-services directory and its base tasks: WebRider Appendix B (Table 9), locality.

Places show category, address and Saturday hours on their own page; distances come only from
the maps provider's page (the runtime's maps action). Decoys close too early, lie too far away,
or have unconfirmed hours (the material blocker); some listings sit behind a CAPTCHA.
"""

from __future__ import annotations

import random
from typing import Any

from envs.sites.build import (
    Catalog,
    attr,
    best,
    blocker,
    evidence_answer,
    gold_answer,
    need,
    recommendation,
)
from envs.sites.model import BaseTask, SiteData

NAME, PREFIX = "directory", "DR"
HOODS = ("Riverside", "Old Town", "Harbor")
CATEGORIES = {
    "Bike repair": ["Spoke", "Chainline", "Gearhouse", "Pedal"],
    "Pharmacy": ["Green Cross", "Apotheca", "Remedy", "Vital"],
    "Hardware store": ["Toolbox", "Nail & Bolt", "Fixit", "Anvil"],
    "Laundromat": ["Suds", "Spin Cycle", "Fresh Fold", "Bubbles"],
    "Veterinary clinic": ["Paws", "Whisker", "Ark", "Fauna"],
    "Bakery": ["Crumb", "Rye & Co", "Hearth", "Golden Loaf"],
}
STREETS = ("Elm", "Quay", "Mill", "Canal", "Oak")
SUFFIX = ("Studio", "Corner", "House", "Point", "Hub", "Works")
MODES = [
    "plan",
    "select",
    "compare",
    "lookup",
    "plan",
    "select",
    "plan",
    "compare",
    "select",
    "lookup",
    "plan",
    "select",
    "compare",
    "lookup",
    "plan",
    "select",
]
BLOCKED_SLOTS = {3, 10}
MAPS_LINK = "Open in maps"


class DirectoryBuilder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cat = Catalog(PREFIX, rng)

    def place(
        self,
        category: str,
        hood: str,
        *,
        closes: int,
        dist: float,
        step_free: str = "Yes",
        hours: str = "Confirmed this month",
        rating: float | None = None,
        wall: Any = None,
    ) -> Any:
        rng = self.rng
        title = self.cat.unique_title(
            lambda: f"{rng.choice(CATEGORIES[category])} {rng.choice(SUFFIX)} {rng.randint(2, 98)}"
        )
        dists = {h: (dist if h == hood else round(dist + rng.uniform(1.5, 6.0), 1)) for h in HOODS}
        mp = self.cat.page(
            "map",
            title,
            {
                **{f"Distance from {h}": f"{d:.1f} km" for h, d in dists.items()},
                **{f"Walking time from {h}": f"{round(d * 12)} min" for h, d in dists.items()},
            },
        )
        facts = {
            "Category": category,
            "Address": f"{rng.randint(1, 240)} {rng.choice(STREETS)} Street, {hood}",
            "Neighborhood": hood,
            "Opens Saturday": f"{rng.choice([8, 9, 10])}:00",
            "Closes Saturday": f"{closes}:00",
            "Hours status": hours,
            "Rating": f"{rating if rating is not None else round(rng.uniform(3.2, 4.9), 1)} / 5",
            "Step-free entrance": step_free,
        }
        return self.cat.add(
            title,
            category,
            facts,
            ["Neighborhood", "Closes Saturday", "Rating"],
            related={"map": mp.id},
            wall=wall,
        )

    def task(self, slot: int) -> tuple[BaseTask, dict[str, Any]]:
        rng = self.rng
        category = list(CATEGORIES)[slot % len(CATEGORIES)]
        hood = HOODS[slot % len(HOODS)]
        mode = MODES[slot]
        t, d = rng.choice([18, 19, 20]), rng.choice([1.5, 2.0, 3.0])
        wall = "captcha" if slot in BLOCKED_SLOTS else None
        gold = self.place(
            category,
            hood,
            closes=t + rng.choice([0, 1, 2]),
            dist=round(d - rng.uniform(0.2, 1.0), 1),
            rating=round(4.1 + 0.1 * rng.randint(0, 7), 1),
            wall=wall,
        )
        self.place(category, hood, closes=t - 2, dist=d - 0.6)  # closes too early
        self.place(category, hood, closes=t + 1, dist=d + 1.4)  # too far (map only)
        self.place(category, hood, closes=t + 1, dist=d - 0.4, step_free="No")
        has_blocker = slot % 2 == 1
        if has_blocker:
            self.place(category, hood, closes=t + 1, dist=d - 0.5, hours="Unconfirmed")
        for _ in range(2):
            self.place(
                category,
                rng.choice(HOODS),
                closes=rng.choice([16, 17, 21]),
                dist=rng.uniform(0.5, 5),
            )
        noun = category.lower()
        hard = [
            attr("Category", "eq", category, f"A {noun}"),
            attr("Closes Saturday", "min", float(t), f"Open on Saturday until at least {t}:00"),
            attr(f"Distance from {hood}", "max", d, f"Within {d} km of {hood}", page="map"),
        ]
        evidence = [
            need("Closes Saturday"),
            need("Address"),
            need(f"Distance from {hood}", "map", MAPS_LINK),
        ]
        blockers = (
            [
                blocker(
                    "b_hours", "Saturday hours may be out of date", "Hours status", ["Unconfirmed"]
                )
            ]
            if has_blocker
            else []
        )
        extra: dict[str, Any] = {}
        if mode in ("plan", "select"):
            if mode == "plan":
                hard.append(attr("Step-free entrance", "eq", "Yes", "Step-free entrance"))
                evidence.append(need("Step-free entrance"))
                request = (
                    f"Plan a Saturday errand: a {noun} within {d} km of {hood} that is open until "
                    f"at least {t}:00 and has a step-free entrance."
                )
            else:
                request = (
                    f"Find a {noun} within {d} km of {hood} that is open on Saturday until "
                    f"at least {t}:00."
                )
            goal = "Recommend one place that fits, with its hours and distance."
            answer = recommendation()
        elif mode == "compare":
            self.place(category, hood, closes=t + 2, dist=d - 0.3, rating=3.6)
            request = (
                f"Compare the {noun}s within {d} km of {hood} open Saturday until at least {t}:00 "
                "and recommend the best rated one."
            )
            goal = "Recommend the best-rated place that fits."
            hard.append(best("Rating", "argmax", "Highest rating among places that fit"))
            evidence.append(need("Rating"))
            answer = recommendation()
        else:
            request = f'What time does "{gold.title}" close on Saturday?'
            goal = "Report the Saturday closing time shown on the place's page."
            hard = [
                gold_answer("selection", "The place named in the request"),
                gold_answer("value", "The closing time the listing shows"),
            ]
            evidence = [need("Closes Saturday")]
            blockers = []
            answer = evidence_answer("value", value_fact="Closes Saturday")
            extra = {"subject": gold.id}
        task = BaseTask(
            id=f"directory-{slot + 1:02d}",
            site=NAME,
            mode=mode,
            request=request,
            goal=goal,
            hard_constraints=hard,
            soft_preferences=["Short walk", "Well reviewed"],
            blockers=blockers,
            evidence=evidence,
            answer=answer,
            geographic=True,
            location=hood,
            difficulty=1 + slot % 4,
        )
        return task, extra


def build(rng: random.Random) -> tuple[SiteData, list[tuple[BaseTask, dict[str, Any]]]]:
    b = DirectoryBuilder(rng)
    tasks = [b.task(slot) for slot in range(len(MODES))]
    data = SiteData(
        name=NAME,
        title="Cityline Directory",
        item_noun="place",
        categories=list(CATEGORIES),
        related_links={"map": MAPS_LINK},
        items=b.cat.items,
        pages=b.cat.pages,
    )
    return data, tasks
