"""Base-path normalization: OdoBot Section III-A (dynamic URL segments become '*').

The paper writes one regex per application from its API documentation; here the rules are
data (a pydantic list), and the default rule set matches what the LMS's URLs use as ids.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict


class PathRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    pattern: str  # matched against one path segment
    replace: str = "*"


# Numeric ids, UUIDs and long hex tokens are the dynamic segments of typical REST paths.
DEFAULT_RULES: tuple[PathRule, ...] = (
    PathRule(pattern=r"\d+"),
    PathRule(pattern=r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    PathRule(pattern=r"[0-9a-f]{16,}"),
)


def normalize_path(url_or_path: str, rules: tuple[PathRule, ...] = DEFAULT_RULES) -> str:
    """'http://127.0.0.1:8088/courses/2/assignments/7/submit' -> '/courses/*/assignments/*/submit'.

    Protocol, host, port, query and fragment are dropped (the paper's base path).
    """
    path = urlsplit(url_or_path).path if "://" in url_or_path else url_or_path.split("?")[0]
    compiled = [(re.compile(rf"^(?:{r.pattern})$"), r.replace) for r in rules]
    out = []
    for seg in path.split("/"):
        for rx, rep in compiled:
            if seg and rx.match(seg):
                seg = rep
                break
        out.append(seg)
    return "/".join(out) or "/"
