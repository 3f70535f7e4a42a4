"""AST equivalence is logical equivalence over atoms, not string match."""

from __future__ import annotations

from catalogbrowse.prereq.normalize import equivalent


def c(x: str) -> dict:
    return {"kind": "course", "course": x}


def g(kind: str, *items, **kw) -> dict:
    return {"kind": kind, "items": list(items), **kw}


A, B, C = c("MATH 1"), c("MATH 2"), c("MATH 3")


def test_same_function_of_the_atoms() -> None:
    assert equivalent(
        g("all_of", A, g("any_of", B, C)), g("any_of", g("all_of", A, B), g("all_of", C, A))
    )
    assert equivalent(
        g("choose_n", B, A, C, n=2),
        g("any_of", g("all_of", A, B), g("all_of", A, C), g("all_of", B, C)),
    )
    assert equivalent(g("all_of", A, g("any_of", A, B)), A)  # absorption
    assert not equivalent(g("all_of", A, B), g("any_of", A, B))
    assert not equivalent(A, {"kind": "concurrent", "course": "MATH 1"})


def test_no_requirement_equals_only_no_requirement() -> None:
    assert equivalent(None, None)
    assert not equivalent(None, A) and not equivalent(A, None)


def test_copied_text_is_compared_by_its_content_words() -> None:
    fyw = {"kind": "requirement", "text": "FYW"}
    assert equivalent(fyw, {"kind": "requirement", "text": "completion of the FYW requirement"})
    assert not equivalent(fyw, {"kind": "requirement", "text": "BTS-T"})
    nurses = {"kind": "program", "text": "nursing majors"}
    assert equivalent(nurses, {"kind": "program", "text": "senior nursing majors"})
    two = {"kind": "courses", "n": 2, "area": "philosophy"}
    assert equivalent(two, {"kind": "courses", "n": 2, "area": "courses in philosophy"})
    assert not equivalent(two, {"kind": "courses", "n": 1, "area": "philosophy"})
