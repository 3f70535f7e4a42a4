"""The five platform families KnowPlan names: CourseLeaf-, Acalog-like, JSON API, PDF, custom."""

from __future__ import annotations

from collections.abc import Callable

from envs.catalog.synth.families import acalog, api, courseleaf, custom, pdf
from envs.catalog.synth.school import School
from envs.catalog.synth.site import Site

FAMILIES: dict[str, Callable[[School, set[str]], Site]] = {
    "courseleaf": courseleaf.render,
    "acalog": acalog.render,
    "api": api.render,
    "pdf": pdf.render,
    "custom": custom.render,
}
