"""Inferred actions for undischarged obligations: KnowPlan, "Atomic obligations" (an obligation
keeps generating expected gain until it is bound or explicitly failed) and "Masked-source recovery".

Three guesses, each a URL the site's own conventions predict, never a crawl:
- cursors: "Page k of N" with some page links missing -> the missing `page=` values; a cursor list
  whose declared total exceeds what was seen -> the next `cursor=` offset;
- subject indexes: a subject page's URL with its code swapped for a subject that is referenced
  (or declared) but has no page yet;
- course details: a detail page's URL with its subject and number swapped for a referenced course.
"""

from __future__ import annotations

import re

from catalogbrowse.state import CatalogState


def _swap(url: str, old: str, new: str) -> str | None:
    """url with subject code `old` replaced by `new` in the same letter case."""
    for o, n in ((old, new), (old.lower(), new.lower())):
        if re.search(rf"(?<![A-Za-z]){re.escape(o)}(?![A-Za-z])", url):
            return re.sub(rf"(?<![A-Za-z]){re.escape(o)}(?![A-Za-z])", n, url)
    return None


def inferred(state: CatalogState) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    opened = set(state.opened)
    for (url, what), n in state.declared.items():
        if what == "pages" and "page=" in url:
            out[f"count:{url}:pages"] = [
                re.sub(r"page=\d+", f"page={k}", url) for k in range(1, n + 1)
            ]
        if what == "courses" and "cursor=" in url:
            y = state.yields[url]
            step = max(1, len(y.courses))
            base = re.sub(r"cursor=\d+", "cursor={}", url)
            out[f"count:{url}:courses"] = [base.format(k) for k in range(0, n, step)]
    missing_subjects: dict[str, list[str]] = {}
    for cid in state.refs:
        if cid not in state.courses:
            missing_subjects.setdefault(cid.split()[0], []).append(cid)
    for key in state.entries:
        if key.startswith("subject:") and key[8:] not in state.subjects:
            missing_subjects.setdefault(key[8:], [])
    templates = []
    for code, url in state.subjects.items():
        y = state.yields[url]
        if "cursor=" in url:
            url = re.sub(r"cursor=\d+", "cursor=0", url)
        if _swap(url, code, "ZZ") is not None:
            templates.append((code, url))
    counts = [k for k in state.declared if k[1] == "subjects"]
    for subj, refs in missing_subjects.items():
        guesses = [g for code, t in templates if (g := _swap(t, code, subj)) and g not in opened]
        for cid in refs:
            out.setdefault(f"ref:{cid}", []).extend(guesses)
        out.setdefault(f"entry:subject:{subj}", []).extend(guesses)
        for url, what in counts:
            out.setdefault(f"count:{url}:{what}", []).extend(guesses)
    details = []
    for url in state.opened:
        y = state.yields[url]
        if len(y.courses) == 1 and y.courses[0].complete:
            subj, num = y.courses[0].id.value.split()
            if num in url and _swap(url, subj, "ZZ"):
                details.append((subj, num, url))
    for cid in sorted(state.refs):
        if cid in state.courses:
            continue
        subj, num = cid.split()
        for s, n, url in details[:3]:
            g = _swap(url.replace(n, num), s, subj)
            if g and g not in opened:
                out.setdefault(f"ref:{cid}", []).append(g)
    return {k: sorted(set(v)) for k, v in out.items()}
