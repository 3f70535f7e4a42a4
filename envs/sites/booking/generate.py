"""Seeded booking site and its base tasks: WebRider Appendix B (Table 9), plans with late fees.

A stay's page shows the nightly rate; cleaning and service fees, and so the total, appear only
on its price breakdown. Decoys fit on the nightly rate but not on the total, are unavailable
for the dates, sleep too few, or leave cancellation terms open; some breakdowns need a login.
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
    money,
    need,
    recommendation,
)
from envs.sites.model import BaseTask, SiteData

NAME, PREFIX = "booking", "BK"
CITIES = ("Lisbon", "Porto", "Seville", "Valencia")
KINDS = ("Apartment", "Loft", "Guesthouse room", "Studio", "Townhouse")
NAMES = (
    "Azulejo",
    "Ribeira",
    "Alfama",
    "Triana",
    "Sol",
    "Marina",
    "Oliva",
    "Bairro",
    "Luz",
    "Patio",
)
MODES = [
    "plan",
    "compare",
    "plan",
    "verify",
    "select",
    "plan",
    "compare",
    "verify",
    "plan",
    "select",
    "compare",
    "plan",
    "verify",
    "select",
    "compare",
    "plan",
]
BLOCKED_SLOTS = {4, 11}
FEES_LINK = "Price breakdown"
NIGHTS = 3
TOTAL = f"Total for {NIGHTS} nights"


class BookingBuilder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cat = Catalog(PREFIX, rng)

    def stay(
        self,
        city: str,
        *,
        rate: float,
        fees: float,
        guests: int,
        available: str = "Yes",
        cancel: str = "Free cancellation",
        wall: Any = None,
    ) -> Any:
        rng = self.rng
        title = self.cat.unique_title(
            lambda: f"{rng.choice(NAMES)} {rng.choice(KINDS)} {rng.randint(2, 99)}, {city}"
        )
        cleaning = round(fees * 0.6, 2)
        service = round(fees - cleaning, 2)
        total = rate * NIGHTS + fees
        fp = self.cat.page(
            "fees",
            title,
            {
                "Nights": f"{NIGHTS} (Mar 14 to Mar 17)",
                "Nightly rate": money(rate),
                "Cleaning fee": money(cleaning),
                "Service fee": money(service),
                TOTAL: money(total),
            },
            wall=wall,
        )
        facts = {
            "City": city,
            "Nightly rate": money(rate),
            "Sleeps": f"{guests} guests",
            "Available Mar 14 to Mar 17": available,
            "Cancellation": cancel,
            "Rating": f"{round(rng.uniform(3.8, 4.9), 1)} / 5",
            "Distance to center": f"{round(rng.uniform(0.3, 4.0), 1)} km",
        }
        return self.cat.add(
            title,
            f"{city} stays",
            facts,
            ["City", "Nightly rate", "Sleeps", "Available Mar 14 to Mar 17"],
            related={"fees": fp.id},
        )

    def task(self, slot: int) -> tuple[BaseTask, dict[str, Any]]:
        rng = self.rng
        city = CITIES[slot % len(CITIES)]
        mode = MODES[slot]
        g = rng.choice([2, 3, 4])
        budget = rng.randrange(450, 1100, 50)
        rate = round((budget - rng.randrange(90, 160, 10)) / NIGHTS - 20, 0)
        fees = rng.randrange(40, 70, 5)
        wall = "login" if slot in BLOCKED_SLOTS else None
        gold = self.stay(city, rate=rate, fees=fees, guests=g + rng.choice([0, 1]), wall=wall)
        self.stay(city, rate=rate - 10, fees=fees + 180, guests=g)  # fees break the total
        self.stay(city, rate=rate - 15, fees=fees, guests=g, available="No")
        self.stay(city, rate=rate - 5, fees=fees, guests=g - 1)
        has_blocker = slot % 2 == 0
        if has_blocker:
            self.stay(city, rate=rate - 12, fees=fees, guests=g, cancel="Ask host")
        for _ in range(2):
            self.stay(
                city,
                rate=rng.randrange(90, 400, 5),
                fees=rng.randrange(30, 90, 5),
                guests=rng.choice([1, 2, 5]),
            )
        hard = [
            attr("City", "eq", city, f"In {city}"),
            attr("Sleeps", "min", float(g), f"Sleeps at least {g}"),
            attr("Available Mar 14 to Mar 17", "eq", "Yes", "Available Mar 14 to Mar 17"),
            attr(
                TOTAL, "max", float(budget), f"Total with all fees at most ${budget}", page="fees"
            ),
        ]
        evidence = [
            need("Nightly rate"),
            need("Sleeps"),
            need("Available Mar 14 to Mar 17"),
            need(TOTAL, "fees", FEES_LINK),
        ]
        blockers = (
            [blocker("b_cancel", "Cancellation terms remain unclear", "Cancellation", ["Ask host"])]
            if has_blocker
            else []
        )
        extra: dict[str, Any] = {}
        dates = "from Mar 14 to Mar 17"
        if mode == "plan":
            request = (
                f"Plan {NIGHTS} nights in {city} {dates} for {g} guests with a total under "
                f"${budget} including all fees."
            )
            goal = "Recommend one stay whose full price fits, with its breakdown."
            answer = recommendation()
        elif mode == "select":
            hard.append(attr("Cancellation", "eq", "Free cancellation", "Free cancellation"))
            evidence.append(need("Cancellation"))
            request = (
                f"Find a stay in {city} {dates} for {g} guests with free cancellation, "
                f"at most ${budget} in total."
            )
            goal = "Recommend one stay that fits."
            answer = recommendation()
        elif mode == "compare":
            self.stay(city, rate=rate - 8, fees=fees + 10, guests=g)
            request = (
                f"Compare stays in {city} {dates} for {g} guests up to ${budget} in total and "
                "recommend the cheapest once fees are included."
            )
            goal = "Recommend the valid stay with the lowest total."
            hard.append(best(TOTAL, "argmin", "Lowest total among stays that fit", page="fees"))
            answer = recommendation()
        else:
            request = (
                f'Check whether "{gold.title}" offers free cancellation '
                "and sleeps at least 4 guests."
            )
            goal = "Say whether both claims hold, citing the stay's page."
            extra = {
                "subject": gold.id,
                "claims": [
                    attr("Cancellation", "eq", "Free cancellation", "Free cancellation"),
                    attr("Sleeps", "min", 4.0, "Sleeps at least 4"),
                ],
            }
            hard = [
                gold_answer("selection", "The stay named in the request"),
                gold_answer("verdict", "The verdict matches what the stay's page shows"),
            ]
            evidence = [need("Cancellation"), need("Sleeps")]
            blockers = []
            answer = evidence_answer("verdict")
        task = BaseTask(
            id=f"booking-{slot + 1:02d}",
            site=NAME,
            mode=mode,
            request=request,
            goal=goal,
            hard_constraints=hard,
            soft_preferences=["Central location", "Good reviews"],
            claims=extra.pop("claims", []),
            blockers=blockers,
            evidence=evidence,
            answer=answer,
            difficulty=1 + slot % 4,
        )
        return task, extra


def build(rng: random.Random) -> tuple[SiteData, list[tuple[BaseTask, dict[str, Any]]]]:
    b = BookingBuilder(rng)
    tasks = [b.task(slot) for slot in range(len(MODES))]
    data = SiteData(
        name=NAME,
        title="Staywell Booking",
        item_noun="stay",
        categories=[f"{c} stays" for c in CITIES],
        related_links={"fees": FEES_LINK},
        modal=True,
        items=b.cat.items,
        pages=b.cat.pages,
    )
    return data, tasks
