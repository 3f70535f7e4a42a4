"""Jinja environment for local web apps: the app's own templates first, then the shared ones.

The shared templates (`base.html`, the access walls) live beside this module, so a site or the
LMS extends `base.html` and renders the same CAPTCHA / login / 403 / 429 pages.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape


def shared_template_dir() -> Path:
    return Path(str(resources.files("envs.webapp").joinpath("templates")))


def make_templates(*dirs: str | Path) -> Jinja2Templates:
    """Templates from `dirs` (searched in order), then the shared ones; undefined names fail."""
    loader = ChoiceLoader(
        [FileSystemLoader([str(d) for d in dirs]), FileSystemLoader(str(shared_template_dir()))]
    )
    env = Environment(
        loader=loader,
        autoescape=select_autoescape(["html", "jinja"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return Jinja2Templates(env=env)
