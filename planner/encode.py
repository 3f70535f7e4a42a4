"""Requirement hyperedges as linear constraints: KnowPlan, DegreeMap "Typed requirement
hypergraph" (ALL_OF, ANY_OF, CHOOSE_N, MIN_UNITS, pools, double-count scopes)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ortools.sat.python import cp_model

from planner.documents import (
    AllOf,
    AnyOf,
    AtMost,
    ChooseN,
    CourseRef,
    Expr,
    MinDepartments,
    MinUnits,
    NotBefore,
    Pool,
)
from planner.presolve import acknowledger

LinExpr = cp_model.LinearExprT


class RequirementEncoder:
    """Mixed into the model Builder; needs its model, graph, request, taken, by_cls, slots."""

    m: cp_model.CpModel
    g: Any
    r: Any
    enc: Any
    done: set[str]
    taken: dict[str, LinExpr]
    by_cls: dict[str, list[tuple[int, cp_model.IntVar]]]
    slots: dict[int, Any]

    def require_all(
        self, roots: list[tuple[str, Expr | None]], ge: list[tuple[str, Expr]], explain: bool
    ) -> None:
        g = self.g
        self._uses: dict[str, dict[str, list[cp_model.IntVar]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self._n_scopes = 0
        # GE uses need their own literals only where a program forbids sharing with GE.
        forbid_ge = any(not g.programs[pid].double_count.with_ge for pid, _ in roots)
        for pid, expr in roots:
            prog = g.programs[pid]
            scope = pid if not prog.double_count.within_program else None
            tag = "prog" if not prog.double_count.with_ge else None
            self._require_root(pid, prog.name, expr, scope, tag, explain)
        if ge:
            fw = ge[0][0].split("/", 1)[0]
            once = g.frameworks[fw].courses_count_once
            names = {f"{fw}/{c.id}": c.name for c in g.frameworks[fw].categories}
            for key, expr in ge:
                tag = "ge" if forbid_ge else None
                self._require_root(key, names[key], expr, fw if once else None, tag, explain)
        for _scope, per_cls in self._uses.items():
            if _scope.startswith("#"):
                continue
            for us in per_cls.values():
                if len(us) > 1:
                    self.m.Add(sum(us) <= 1)
        self._disjoint_prog_ge()

    def _acknowledged(self, policy: str) -> bool:
        if not hasattr(self, "_ack"):
            self._ack = acknowledger(self.g, self.r)
        return self._ack(policy)

    def _assume(self, key: str, words: str, explain: bool) -> cp_model.IntVar | None:
        if not explain:
            return None
        lit = self.m.NewBoolVar(f"assume[{key}]")
        self.enc.assumptions[key] = (lit, words)
        return lit

    def _require_root(
        self,
        key: str,
        name: str,
        expr: Expr | None,
        scope: str | None,
        tag: str | None,
        explain: bool,
    ) -> None:
        if expr is None:
            return
        items = expr.items if isinstance(expr, AllOf) and explain else [expr]
        if isinstance(expr, AllOf) and expr.distinct and scope is None:
            scope = self._new_scope(key)
        for i, item in enumerate(items):
            label = item.label or (f"{key} requirement {i + 1}" if len(items) > 1 else key)
            lit = self._assume(f"req:{key}:{i}", f"the requirement '{label}' of {key}", explain)
            if lit is None:
                lit = self.m.NewConstant(1)
            plain = not item.label or item.label.startswith(name)
            path = (item.label or name) if plain else f"{name} › {label}"
            self._req(lit, item, scope, tag, path)

    def _new_scope(self, key: str) -> str:
        self._n_scopes += 1
        return f"{key}#distinct{self._n_scopes}"

    def _use(
        self,
        cls: str,
        scope: str | None,
        tag: str | None,
        path: str,
        avail: LinExpr | None = None,
    ) -> LinExpr:
        """The literal that the class fills this leaf (its own literal inside a scope where a
        course may fill only one leaf)."""
        t = self.taken.get(cls, 0) if avail is None else avail
        if isinstance(t, int):
            return t
        if scope is None and tag is None and avail is None:
            # The class's own taken expression; `fills` records None for it because
            # evaluating a shared sum expression after a solve can alter it in place.
            self.enc.fills.append((path, cls, None))
            return t
        u = self.m.NewBoolVar(f"use[{cls}]")
        if scope is None and tag is None:
            self.m.Add(u == t)
        else:
            self.m.Add(u <= t)
        if scope is not None:
            self._uses[scope][cls].append(u)
        if tag is not None:
            self._uses[f"#{tag}"][cls].append(u)
        self.enc.fills.append((path, cls, u))
        return u

    def _disjoint_prog_ge(self) -> None:
        prog, ge = self._uses.get("#prog", {}), self._uses.get("#ge", {})
        for cls in sorted(set(prog) & set(ge)):
            p_any = self.m.NewBoolVar("")
            for u in prog[cls]:
                self.m.AddImplication(u, p_any)
            self.m.Add(p_any + sum(ge[cls]) <= 1)

    def _taken_in(self, cls: str, terms: list[str]) -> LinExpr:
        vs = [v for t, v in self.by_cls.get(cls, []) if self.slots[t].calendar_id in terms]
        return sum(vs) if vs else 0

    def _req(
        self, enf: cp_model.IntVar, e: Expr, scope: str | None, tag: str | None, path: str
    ) -> None:
        """enf => requirement e holds by the end of the plan."""
        m, g = self.m, self.g
        sub = f"{path} › {e.label}" if e.label and not path.endswith(e.label) else path
        if isinstance(e, CourseRef):
            cls = g.class_of.get(e.course)
            avail = self._taken_in(cls, e.terms) if cls and e.terms else None
            m.Add(enf <= (self._use(cls, scope, tag, sub, avail) if cls else 0))
        elif isinstance(e, AllOf | AnyOf | ChooseN):
            if e.distinct and scope is None:
                scope = self._new_scope(path)
            if isinstance(e, AllOf):
                for i in e.items:
                    self._req(enf, i, scope, tag, sub)
            else:
                self._at_least(
                    enf,
                    e,
                    lambda a, i: self._req(a, i, scope, tag, sub),
                    lambda cls: self._use(cls, scope, tag, sub),
                )
        elif isinstance(e, Pool):
            pool = g.pool_classes(e.pool)
            if e.overlap:
                got = [self.taken.get(k, 0) for k in pool]
            else:
                got = [self._use(k, scope, tag, sub) for k in pool]
            m.Add(e.min_courses * enf <= sum(got))
        elif isinstance(e, MinUnits):
            pool = g.pool_classes(e.pool)
            need = math.ceil(e.units * self.enc.scale - 1e-9)
            m.Add(
                need * enf
                <= sum(
                    round(g.class_units(k) * self.enc.scale) * self._use(k, scope, tag, sub)
                    for k in pool
                )
            )
        elif isinstance(e, AtMost):
            got = [self.taken[k] for k in g.pool_classes(e.pool) if k in self.taken]
            m.Add(sum(got) <= e.n + len(got) * (1 - enf))
        elif isinstance(e, MinDepartments):
            self._min_departments(enf, e)
        elif isinstance(e, NotBefore):
            self._not_before(enf, e, scope, tag, sub)
        elif e.kind == "unsupported" and self._acknowledged(e.policy):
            pass
        else:  # unsupported, unresolved conditional, or a prerequisite-only kind
            m.Add(enf == 0)

    def _min_departments(self, enf: cp_model.IntVar, e: MinDepartments) -> None:
        """Taken pool courses cover n departments; a cross-listed course counts for one."""
        by_dept: dict[str, list[LinExpr]] = defaultdict(list)
        for k in self.g.pool_classes(e.pool):
            t = self.taken.get(k, 0)
            if isinstance(t, int) and t == 0:
                continue
            depts = sorted(self.g.class_departments(k))
            if len(depts) == 1:
                by_dept[depts[0]].append(t)
                continue
            picks = [self.m.NewBoolVar("") for _ in depts]
            self.m.Add(sum(picks) <= t)
            for d, a in zip(depts, picks, strict=True):
                by_dept[d].append(a)
        ys = []
        for items in by_dept.values():
            y = self.m.NewBoolVar("")
            self.m.Add(y <= sum(items))
            ys.append(y)
        self.m.Add(e.n * enf <= sum(ys))

    def _not_before(
        self, enf: cp_model.IntVar, e: NotBefore, scope: str | None, tag: str | None, path: str
    ) -> None:
        """Pool courses taken no earlier (by academic year) than some course of `after`."""
        m, g = self.m, self.g
        after = g.pool_classes(e.after)
        after_done = any(k in self.done for k in after)
        prior_cache: dict[int, LinExpr] = {}

        def prior(year: int) -> LinExpr:
            if year not in prior_cache:
                vs = [
                    v
                    for a in after
                    for t2, v in self.by_cls.get(a, [])
                    if self.slots[t2].year <= year
                ]
                prior_cache[year] = sum(vs) if vs else 0
            return prior_cache[year]

        lits = []
        for k in g.pool_classes(e.pool):
            if k in self.done:
                avail: LinExpr = 1 if after_done else 0
            elif after_done:
                avail = self.taken.get(k, 0)
            else:
                ws = []
                for t, v in self.by_cls.get(k, []):
                    p = prior(self.slots[t].year)
                    if isinstance(p, int):
                        continue
                    w = m.NewBoolVar("")
                    m.Add(w <= v)
                    m.Add(w <= p)
                    ws.append(w)
                avail = sum(ws) if ws else 0
            if isinstance(avail, int) and avail == 0:
                continue
            lits.append(self._use(k, scope, tag, path, avail))
        m.Add(e.n * enf <= sum(lits))

    def _at_least(
        self,
        enf: cp_model.IntVar,
        e: AnyOf | ChooseN,
        sub: Callable[[cp_model.IntVar, Expr], None],
        leaf: Callable[[str], LinExpr],
    ) -> None:
        """enf => at least n of e's items (one single cardinality constraint, never pairwise)."""
        n = 1 if isinstance(e, AnyOf) else e.n
        self.m.Add(n * enf <= sum(self._witnesses(e.items, sub, leaf)))

    def _witnesses(
        self,
        items: list[Expr],
        sub: Callable[[cp_model.IntVar, Expr], None],
        leaf: Callable[[str], LinExpr],
    ) -> list[LinExpr]:
        # Course leaves are counted per equivalence class so two equivalent courses can never
        # satisfy a choose-2; nested nodes get one auxiliary literal each.
        out: list[LinExpr] = []
        seen: set[str] = set()
        for i in items:
            if isinstance(i, CourseRef) and not i.terms:
                cls = self.g.class_of.get(i.course)
                if cls and cls not in seen:
                    seen.add(cls)
                    out.append(leaf(cls))
            else:
                a = self.m.NewBoolVar("")
                sub(a, i)
                out.append(a)
        return out
