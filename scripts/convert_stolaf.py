"""Convert the St. Olaf sources into the planner's three documents (KnowPlan, "Problem
Formulation"): one catalog for the academic years 2014-15 to 2017-18 (offerings where sections
appear, the Bachelor of Arts GE framework) and one for fall 2025 alone.

    python scripts/convert_stolaf.py --src ../shared/data/catalogs \\
        --out data/catalogs/stolaf --out-2025 data/catalogs/stolaf-2025

A malformed source (a term-file record without a field, an unknown department, a YAML file
that does not parse) stops the run with one line naming the file, the record and the field;
nothing is written then. Otherwise both catalogs are written whole (each file replaced
atomically).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from planner.documents import DOC_FILES, save_docs
from planner.stolaf.convert import convert, summary
from planner.term_files import TermFileError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument(
        "--src",
        type=Path,
        default=Path("../shared/data/catalogs"),
        help="folder with stolaf-courses/ and stolaf-degree-requirements/",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=Path("data/catalogs/stolaf"),
        help="catalog of 2014-15..2017-18 (written whole)",
    )
    ap.add_argument(
        "--out-2025",
        default="data/catalogs/stolaf-2025",
        help="catalog of fall 2025 alone; '' skips it",
    )
    ap.add_argument(
        "--terms",
        nargs="*",
        default=None,
        help="term ids for --out (default: every terms-201*.json)",
    )
    args = ap.parse_args(argv)
    try:
        docs = [(args.out, convert(args.src, args.terms))]
        if args.out_2025:
            docs.append((Path(args.out_2025), convert(args.src, ["20251"], observed=False)))
    except (TermFileError, yaml.YAMLError, OSError, KeyError, ValueError) as exc:
        print(f"error: {_one_line(exc)}; nothing written", file=sys.stderr)
        return 2
    for out, d in docs:
        _write(d, out)
        print(f"{out}: {summary(d)}")
    return 0


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"missing key {exc}"
    return " ".join(str(exc).split())


def _write(docs, out: Path) -> None:
    """Write to a sibling temp folder, then replace each file, so a crash leaves old files."""
    tmp = out.with_name(out.name + ".tmp")
    save_docs(docs, tmp)
    out.mkdir(parents=True, exist_ok=True)
    for name in DOC_FILES.values():
        (tmp / name).replace(out / name)
    tmp.rmdir()


if __name__ == "__main__":
    sys.exit(main())
