"""Seeded help center and its base tasks: WebRider Appendix B (Table 9), the troubleshoot mode.

Articles give a product, an error code, the firmware they apply to and the fix. Decoys share the
error code but apply to another firmware or product, or leave the firmware unspecified (the
blocker); release notes hang off every article; some articles are enterprise-only (403).
"""

from __future__ import annotations

import random
from typing import Any

from envs.sites.build import (
    Catalog,
    attr,
    blocker,
    evidence_answer,
    gold_answer,
    need,
)
from envs.sites.model import BaseTask, SiteData

NAME, PREFIX = "docs", "DC"
PRODUCTS = {
    "Routers": ["AX1800 router", "AX3000 router", "Mesh M5 router"],
    "Printers": ["InkJet P210 printer", "LaserJet L450 printer", "PhotoPro X9 printer"],
    "Smart plugs": ["Plug Mini S1", "Plug Duo S2", "Plug Outdoor S3"],
}
WHEN = ("after update", "on start-up", "when connecting", "keeps returning")
FIRMWARE = ("2.1", "2.4", "3.0", "3.2")
FIXES = (
    "Hold the reset button for 10 seconds, then restore the saved settings.",
    "Turn off automatic channel selection and set channel 6.",
    "Clear the print queue, then reinstall the driver from the support page.",
    "Unplug for 30 seconds and re-pair the device in the app.",
    "Disable the power-saving mode under Settings > Energy.",
    "Roll back to the previous firmware from Settings > Update.",
    "Re-seat the cartridge and run the head-cleaning cycle twice.",
    "Update the companion app, then sign out and back in.",
)
MODES = [
    "troubleshoot",
    "lookup",
    "troubleshoot",
    "verify",
    "troubleshoot",
    "lookup",
    "troubleshoot",
    "verify",
    "troubleshoot",
    "lookup",
    "troubleshoot",
    "verify",
    "troubleshoot",
    "lookup",
    "troubleshoot",
    "verify",
]
BLOCKED_SLOTS = {2, 9}
NOTES_LINK = "Release notes"


class DocsBuilder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cat = Catalog(PREFIX, rng)
        self.notes = {
            p: self.cat.page(
                "notes",
                f"{p} release notes",
                {
                    "Product": p,
                    "Latest firmware": rng.choice(["3.2", "3.3", "3.4"]),
                    "Known issues": rng.choice(
                        ["Wi-Fi drops after sleep", "Slow pairing", "None listed"]
                    ),
                },
            )
            for ps in PRODUCTS.values()
            for p in ps
        }

    def article(
        self, category: str, product: str, code: str, fw: str, fix: str, wall: Any = None
    ) -> Any:
        rng = self.rng
        title = self.cat.unique_title(
            lambda: (
                f"{product} — error {code} {rng.choice(WHEN)}"
                + ("" if rng.random() < 0.5 else f" ({rng.randint(2, 9)})")
            )
        )
        facts = {
            "Product": product,
            "Error code": code,
            "Applies to firmware": fw,
            "Fix": fix,
            "Updated": f"{rng.choice(['Jan', 'Mar', 'Jun', 'Sep'])} {rng.choice([2025, 2026])}",
        }
        return self.cat.add(
            title,
            category,
            facts,
            ["Product", "Error code", "Applies to firmware"],
            related={"notes": self.notes[product].id},
            wall=wall,
        )

    def task(self, slot: int) -> tuple[BaseTask, dict[str, Any]]:
        rng = self.rng
        category = list(PRODUCTS)[slot % len(PRODUCTS)]
        product = rng.choice(PRODUCTS[category])
        code = f"E-{rng.randint(10, 99)}"
        fw = rng.choice(FIRMWARE)
        fixes = rng.sample(FIXES, 4)
        mode = MODES[slot]
        wall = "forbidden" if slot in BLOCKED_SLOTS else None
        gold = self.article(category, product, code, fw, fixes[0], wall=wall)
        self.article(category, product, code, next(f for f in FIRMWARE if f != fw), fixes[1])
        other = next(p for p in PRODUCTS[category] if p != product)
        self.article(category, other, code, fw, fixes[2])
        has_blocker = slot % 2 == 0
        if has_blocker:
            self.article(category, product, code, "Unspecified", fixes[3])
        extra: dict[str, Any] = {}
        blockers: list[Any] = []
        if mode == "troubleshoot":
            request = (
                f"My {product} shows error {code} since I updated to firmware {fw}. "
                "What fix does the help center give?"
            )
            goal = "Report the fix from the article that matches the product, code and firmware."
            hard = [
                attr("Product", "eq", product, f"About the {product}"),
                attr("Error code", "eq", code, f"Error {code}"),
                attr("Applies to firmware", "eq", fw, f"Applies to firmware {fw}"),
                gold_answer("value", "The fix that article gives"),
            ]
            evidence = [need("Error code"), need("Applies to firmware"), need("Fix")]
            if has_blocker:
                blockers = [
                    blocker(
                        "b_firmware",
                        "Firmware applicability is unknown",
                        "Applies to firmware",
                        ["Unspecified"],
                    )
                ]
            answer = evidence_answer("value", value_fact="Fix")
        elif mode == "lookup":
            request = (
                f'What is the latest firmware for the product that "{gold.title}" covers, '
                "per its release notes?"
            )
            goal = "Report the latest firmware version shown in the release notes."
            hard = [
                gold_answer("selection", "The article named in the request"),
                gold_answer("value", "The latest firmware the release notes show"),
            ]
            evidence = [need("Latest firmware", "notes", NOTES_LINK)]
            answer = evidence_answer("value", value_fact="Latest firmware")
            extra = {"subject": gold.id}
        else:
            request = (
                f'Check whether the article "{gold.title}" applies to firmware {fw} '
                "and was updated in 2026."
            )
            goal = "Say whether both claims hold, citing the article."
            hard = [
                gold_answer("selection", "The article named in the request"),
                gold_answer("verdict", "The verdict matches what the article shows"),
            ]
            evidence = [need("Applies to firmware"), need("Updated")]
            answer = evidence_answer("verdict")
            extra = {
                "subject": gold.id,
                "claims": [
                    attr("Applies to firmware", "eq", fw, f"Applies to firmware {fw}"),
                    attr("Updated", "contains", "2026", "Updated in 2026"),
                ],
            }
        task = BaseTask(
            id=f"docs-{slot + 1:02d}",
            site=NAME,
            mode=mode,
            request=request,
            goal=goal,
            hard_constraints=hard,
            soft_preferences=["Official instructions"],
            claims=extra.pop("claims", []),
            blockers=blockers,
            evidence=evidence,
            answer=answer,
            difficulty=1 + slot % 4,
        )
        return task, extra


def build(rng: random.Random) -> tuple[SiteData, list[tuple[BaseTask, dict[str, Any]]]]:
    b = DocsBuilder(rng)
    tasks = [b.task(slot) for slot in range(len(MODES))]
    data = SiteData(
        name=NAME,
        title="Helpdesk Docs",
        item_noun="article",
        categories=list(PRODUCTS),
        related_links={"notes": NOTES_LINK},
        items=b.cat.items,
        pages=b.cat.pages,
    )
    return data, tasks
