"""Page-side scripts for event capture: OdoBot Section III-A (snapshots, elements, DOM effects).

The scripts live in js/ beside this module; the element helpers (lib.js) are prepended to
every function that needs them, so each `page.evaluate` call is self-contained.
"""

from __future__ import annotations

from pathlib import Path

_JS = Path(__file__).with_name("js")

# The paper keeps only these attributes when it shows elements to a model (Section VII).
KEEP_ATTRS = (
    "value", "type", "option", "placeholder", "name", "aria-label", "id", "action", "alt",
    "checked", "for", "form", "href", "title",
)  # fmt: skip


def _with_lib(name: str) -> str:
    lib = (_JS / "lib.js").read_text()
    body = (_JS / name).read_text()
    body = "\n".join(ln for ln in body.splitlines() if not ln.startswith("//"))
    return f"(args) => {{\n{lib}\nreturn ({body.strip()})(args);\n}}"


ELEMENT_INFO_JS = _with_lib("element_info.js")
CONTAINER_OPTIONS_JS = _with_lib("container_options.js")
CANDIDATES_JS = _with_lib("candidates.js")
SNAPSHOT_JS = (_JS / "snapshot.js").read_text().split("\n", 1)[1]
OBSERVER_JS = (_JS / "observer.js").read_text()
