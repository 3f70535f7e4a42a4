"""Seeded shop data and base tasks: WebRider Appendix B (Table 9's camera example, generalised).

Every base task plants its gold product and decoys that satisfy all constraints but one (a
price over budget, a wrong spec only the product page shows, out of stock, a warranty that is
not stated), among fillers of the same category; some sellers' pages sit behind a wall.
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

NAME, PREFIX = "shop", "SH"
SELLER_LINK = "Seller details"
# category -> (noun, brands, spec label, spec values, spec phrase template)
CATEGORIES: dict[str, tuple[str, list[str], str, list[str], str]] = {
    "Mirrorless cameras": (
        "mirrorless camera",
        ["Lumix", "Orion", "Kestrel", "Vanta"],
        "Video",
        ["4K", "1080p"],
        "{v} video",
    ),
    "Monitors": (
        "monitor",
        ["Nexa", "Viewra", "Pixelon", "Crest"],
        "Resolution",
        ["4K", "QHD", "Full HD"],
        "{v}",
    ),
    "Headphones": (
        "wireless headphones",
        ["Sonique", "Aural", "Beatline", "Hush"],
        "Battery life",
        ["20 h", "30 h", "40 h"],
        "at least {v} battery",
    ),
    "Blackout curtains": (
        "blackout curtain set",
        ["Drape&Co", "Nightfall", "Lumo", "Shade"],
        "Installation",
        ["No drill", "Drill required"],
        "{v}",
    ),
    "Air purifiers": (
        "air purifier",
        ["Breeze", "Purio", "Airen", "Clearo"],
        "Room size",
        ["300 sq ft", "500 sq ft", "800 sq ft"],
        "rated for at least {v}",
    ),
    "Laptops": (
        "laptop",
        ["Zenon", "Arcbook", "Fleet", "Norde"],
        "Memory",
        ["8 GB", "16 GB", "32 GB"],
        "with at least {v} memory",
    ),
}
NUMERIC_SPEC = {"Battery life", "Room size", "Memory"}
MODEL_LETTERS = "ABCDEFGHJKMNPRSTVXZ"
CONDITIONS = ("New", "Refurbished", "Open-box")
SELLERS = [
    ("Brand Outlet", "4.8 / 5", "60 days", "Yes", None),
    ("Camden Electronics", "4.5 / 5", "30 days", "No", None),
    ("ValueHub", "3.9 / 5", "14 days", "No", None),
    ("Harbor Goods", "4.2 / 5", "30 days", "No", None),
    ("RenewTech", "4.6 / 5", "90 days", "No", None),
    ("QuickCart", "3.4 / 5", "14 days", "No", "rate_limited"),
    ("Members Club", "4.7 / 5", "30 days", "No", "login"),
]
# 16 base tasks: mode per slot (select 6, compare 4, verify 3, lookup 3).
MODES = [
    "select",
    "compare",
    "select",
    "verify",
    "lookup",
    "select",
    "compare",
    "select",
    "verify",
    "lookup",
    "select",
    "compare",
    "select",
    "lookup",
    "verify",
    "compare",
]
BLOCKED_SLOTS = {5, 12}  # the gold product's seller page is walled: access-blocked for everyone


def _spec_ok(label: str, value: str, want: str) -> bool:
    if label in NUMERIC_SPEC:
        return float(value.split()[0]) >= float(want.split()[0])
    return value == want


class ShopBuilder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cat = Catalog(PREFIX, rng)
        self.sellers = [
            self.cat.page(
                "seller",
                name,
                {
                    "Seller": name,
                    "Seller rating": rating,
                    "Return window": ret,
                    "Official store": off,
                },
                wall=wall,  # type: ignore[arg-type]
            )
            for name, rating, ret, off, wall in SELLERS
        ]
        self.open_sellers = [s for s in self.sellers if s.wall is None]

    def product(
        self,
        category: str,
        *,
        cond: str,
        spec: str,
        price: float,
        seller: Any = None,
        stock: bool = True,
        warranty: str = "12 months",
        brand: str | None = None,
    ) -> Any:
        noun, brands, label, _, _ = CATEGORIES[category]
        brand = brand or self.rng.choice(brands)
        title = self.cat.unique_title(
            lambda: (
                f"{brand} {self.rng.choice(MODEL_LETTERS)}{self.rng.randint(10, 99)}0 "
                f"{noun} ({cond})"
            )
        )
        seller = seller or self.rng.choice(self.open_sellers)
        facts = {
            "Price": money(price),
            "Condition": cond,
            "Brand": brand,
            label: spec,
            "Availability": "In stock" if stock else "Out of stock",
            "Warranty": warranty,
            "Shipping": "Free" if price > 300 else money(9.99),
            "Sold by": seller.title,
        }
        return self.cat.add(
            title,
            category,
            facts,
            ["Price", "Condition", "Availability"],
            related={"seller": seller.id},
        )

    def fillers(self, category: str, n: int) -> None:
        _, _, _, values, _ = CATEGORIES[category]
        for _ in range(n):
            self.product(
                category,
                cond=self.rng.choice(CONDITIONS),
                spec=self.rng.choice(values),
                price=self.rng.randrange(150, 1500, 10) - 0.01,
            )

    def task(self, slot: int) -> tuple[BaseTask, dict[str, Any]]:
        rng = self.rng
        category = list(CATEGORIES)[slot % len(CATEGORIES)]
        noun, _, label, values, phrase = CATEGORIES[category]
        mode = MODES[slot]
        cond = rng.choice(CONDITIONS)
        spec = rng.choice(values[1:] if label in NUMERIC_SPEC else values)
        budget = rng.randrange(300, 1400, 50)
        price = budget - rng.randrange(20, 120, 10) - 0.01
        seller = next(s for s in self.sellers if s.wall) if slot in BLOCKED_SLOTS else None
        gold = self.product(category, cond=cond, spec=spec, price=price, seller=seller)
        other_spec = next(v for v in values if not _spec_ok(label, v, spec))
        # Decoys, each failing exactly one constraint (or leaving the blocker open).
        self.product(
            category, cond=cond, spec=spec, price=budget + rng.randrange(40, 200, 10) - 0.01
        )
        self.product(category, cond=cond, spec=other_spec, price=price - 30)
        self.product(category, cond=cond, spec=spec, price=price - 50, stock=False)
        other_cond = next(c for c in CONDITIONS if c != cond)
        self.product(category, cond=other_cond, spec=spec, price=price - 40)
        has_blocker = slot % 2 == 0
        if has_blocker:
            self.product(category, cond=cond, spec=spec, price=price - 60, warranty="Not stated")
        self.fillers(category, 2)
        tid = f"shop-{slot + 1:02d}"
        spec_text = phrase.format(v=spec)
        op = "min" if label in NUMERIC_SPEC else "eq"
        spec_value: str | float = float(spec.split()[0]) if op == "min" else spec
        hard = [
            attr("Condition", "eq", cond, f"Condition is {cond.lower()}"),
            attr(label, op, spec_value, f"{label}: {spec_text}"),
            attr("Price", "max", float(budget), f"Price at most ${budget}"),
            attr("Availability", "eq", "In stock", "In stock (purchasable)"),
        ]
        evidence = [
            need("Price"),
            need("Condition"),
            need(label),
            need("Availability"),
            need("Return window", "seller", SELLER_LINK),
        ]
        blockers = (
            [blocker("b_warranty", "Warranty coverage remains unknown", "Warranty", ["Not stated"])]
            if has_blocker
            else []
        )
        extra: dict[str, Any] = {}
        prefs = ["Seller reputation and return confidence"]
        if mode == "select":
            request = f"Find a {cond.lower()} {noun} ({spec_text}) for at most ${budget}."
            goal = "Recommend one valid, purchasable product."
            answer = recommendation()
        elif mode == "compare":
            # A second valid product from another seller, so the comparison has two sides.
            rival = self.product(
                category,
                cond=cond,
                spec=spec,
                price=price - 25,
                seller=rng.choice([s for s in self.open_sellers if s.id != gold.related["seller"]]),
            )
            request = (
                f"Compare the {cond.lower()} {noun}s ({spec_text}) up to ${budget} and recommend "
                "the one whose seller has the best rating."
            )
            goal = "Recommend the valid product with the best-rated seller."
            hard.append(
                best(
                    "Seller rating",
                    "argmax",
                    "Its seller has the highest rating among valid products",
                    "seller",
                )
            )
            evidence.append(need("Seller rating", "seller", SELLER_LINK))
            answer = recommendation()
            extra["rival"] = rival.id
        elif mode == "verify":
            request = (
                f'Check whether "{gold.title}" is in stock and comes with a warranty of at least '
                "12 months."
            )
            goal = "Say whether both claims hold, with the product page as evidence."
            claims = [
                attr("Availability", "eq", "In stock", "In stock"),
                attr("Warranty", "min", 12.0, "Warranty of at least 12 months"),
            ]
            hard = [
                gold_answer("selection", "The product named in the request"),
                gold_answer("verdict", "The verdict matches what the product page shows"),
            ]
            evidence = [need("Availability"), need("Warranty")]
            blockers = []
            answer = evidence_answer("verdict")
            extra = {"subject": gold.id, "claims": claims}
        else:  # lookup
            request = f'What is the return window of the seller of "{gold.title}"?'
            goal = "Report the return window as the seller's page states it."
            hard = [
                gold_answer("selection", "The product named in the request"),
                gold_answer("value", "The return window shown on the seller's page"),
            ]
            evidence = [need("Return window", "seller", SELLER_LINK)]
            blockers = []
            answer = evidence_answer("value", value_fact="Return window")
            extra = {"subject": gold.id, "fact": ("seller", "Return window")}
        task = BaseTask(
            id=tid,
            site=NAME,
            mode=mode,
            request=request,
            goal=goal,
            hard_constraints=hard,
            soft_preferences=prefs,
            claims=extra.pop("claims", []),
            blockers=blockers,
            evidence=evidence,
            answer=answer,
            difficulty=1 + slot % 4,
        )
        return task, extra


def build(rng: random.Random) -> tuple[SiteData, list[tuple[BaseTask, dict[str, Any]]]]:
    b = ShopBuilder(rng)
    tasks = [b.task(slot) for slot in range(len(MODES))]
    data = SiteData(
        name=NAME,
        title="Northwind Shop",
        item_noun="product",
        categories=list(CATEGORIES),
        related_links={"seller": SELLER_LINK},
        modal=True,
        items=b.cat.items,
        pages=b.cat.pages,
    )
    return data, tasks
