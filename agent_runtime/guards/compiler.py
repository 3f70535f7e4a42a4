"""The guard compiler compile(raw, observation, history): WebRider Appendix H, Tables 44-46.

Order of authority: external access (stop, never bypass) > stale page (wait) > grammar and
repairs > loops > fallback. It never raises: every failure is a labeled rejection whose
fallback executes, and an internal bug becomes RejectReason.INTERNAL_ERROR.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from agent_runtime.guards import recovery
from agent_runtime.guards.access import detect_access_signal
from agent_runtime.guards.content import check_sensitive, check_text
from agent_runtime.guards.errors import Rejected
from agent_runtime.guards.grammar import Executable, build_action
from agent_runtime.guards.loops import detect_loop, loop_recovery, state_hash_of
from agent_runtime.guards.normalize import MISSING, normalize_body, split_wrapper
from agent_runtime.guards.parse import extract_object
from agent_runtime.guards.readiness import stale_reason
from contracts.actions import (
    ActionAST,
    BackAction,
    FallbackAction,
    WaitAction,
)
from contracts.guard_labels import (
    CompileResult,
    GuardReport,
    GuardStatus,
    LoopKind,
    RejectReason,
    RepairKind,
)
from contracts.history import RecentHistory
from contracts.observation import Observation

_EMPTY_HISTORY = RecentHistory()
_FALLBACK_KINDS = frozenset({"scroll", "search", "maps", "back", "wait"})
_LOOP_REASON = {
    LoopKind.SCROLL_LOOP: RejectReason.SCROLL_LOOP,
    LoopKind.REPEATED_STATE: RejectReason.REPEATED_STATE,
}


def _result(
    action: ActionAST | None, status: GuardStatus, repairs: list[RepairKind], **kw: Any
) -> CompileResult:
    # Plain constructors: pydantic-core validation of these small models is faster than
    # model_construct's Python path, and it keeps the "valid by construction" guarantee.
    report = GuardReport(
        status=status,
        repairs=repairs,
        rejection=kw.get("rejection"),
        detail=kw.get("detail", ""),
        fallback_used=kw.get("fallback_used", False),
        loop=kw.get("loop"),
        stale=kw.get("stale", False),
        external_access=kw.get("external_access"),
    )
    return CompileResult(action=action, report=report)


def _ast(action: Executable, fallback: FallbackAction) -> ActionAST:
    return ActionAST(action=action, fallback=fallback)


def _model_fallback(
    raw: Any,
    obs: Observation,
    geographic: bool,
    repairs: list[RepairKind],
    allow: Collection[str] | None = None,
) -> tuple[FallbackAction | None, str]:
    """The model's own fallback if it is grammar-valid and target-free (Table 46)."""
    fb_repairs: list[RepairKind] = []
    try:
        if not isinstance(raw, dict):
            raise Rejected(RejectReason.NOT_AN_OBJECT, "fallback is not an object")
        body = normalize_body(raw, fb_repairs)
        if body["type"] not in _FALLBACK_KINDS:
            raise Rejected(RejectReason.INVALID_FIELD, f"{body['type']} cannot be a fallback")
        action = build_action(body, obs, fb_repairs, geographic=geographic, allow_sensitive=allow)
    except Rejected as r:
        repairs.append(RepairKind.INVALID_FALLBACK)
        return None, f"fallback {r.reason.value}: {r.detail}"
    for k in fb_repairs:
        if k not in repairs:
            repairs.append(k)
    return action, ""  # type: ignore[return-value]


def _compile(
    raw: str,
    obs: Observation,
    history: RecentHistory,
    geographic: bool,
    allow: Collection[str] | None = None,
) -> CompileResult:
    signal = detect_access_signal(obs)
    if signal is not None:
        return _result(
            None,
            GuardStatus.REJECTED,
            [],
            rejection=RejectReason.EXTERNAL_ACCESS,
            external_access=signal,
            detail=f"external access ({signal.value}): automation stops, not bypassed",
        )
    h = state_hash_of(obs, history)
    repairs: list[RepairKind] = []
    body: dict[str, Any] | None = None
    action: Executable | None = None
    reason: RejectReason | None = None
    detail = ""
    fb_raw: Any = MISSING
    wrapped = False
    try:
        obj, repairs = extract_object(raw)
        if not isinstance(obj, dict):
            raise Rejected(RejectReason.NOT_AN_OBJECT, f"JSON {type(obj).__name__}, not an object")
        act_body, fb_raw = split_wrapper(obj, repairs)
        wrapped = True
        body = normalize_body(act_body, repairs)
        action = build_action(body, obs, repairs, geographic=geographic, allow_sensitive=allow)
    except Rejected as r:
        reason, detail = r.reason, r.detail

    fallback: FallbackAction | None = None
    if fb_raw is MISSING:
        if wrapped:
            repairs.append(RepairKind.MISSING_FALLBACK)
    else:
        fallback, fb_detail = _model_fallback(fb_raw, obs, geographic, repairs, allow)
        if fb_detail:
            detail = f"{detail}; {fb_detail}" if detail else fb_detail

    parse_status = (
        GuardStatus.REJECTED
        if reason is not None
        else (GuardStatus.REPAIRED if repairs else GuardStatus.PARSED)
    )
    stale = stale_reason(obs)
    if stale is not None:
        wait = WaitAction(reason=stale)  # type: ignore[arg-type]
        why = f"page not ready ({stale}): waiting"
        return _result(
            _ast(wait, recovery.secondary(wait, obs, h, history)),
            parse_status,
            repairs,
            rejection=reason,
            stale=True,
            detail=f"{detail}; {why}" if detail else why,
        )

    if action is not None:
        loop = detect_loop(action, h, history)
        if loop is None:
            fb = fallback or recovery.default_fallback(action, obs, h, history)
            return _result(_ast(action, fb), parse_status, repairs, detail=detail)
        rec = loop_recovery(loop, action, h, history)
        return _result(
            _ast(rec, recovery.secondary(rec, obs, h, history)),
            GuardStatus.REJECTED,
            repairs,
            rejection=_LOOP_REASON[loop],
            loop=loop,
            fallback_used=True,
            detail=f"{action.type} repeats without changing the page ({loop.value})",
        )

    assert reason is not None
    loop = None
    if fallback is not None:
        loop = detect_loop(fallback, h, history)
        chosen = loop_recovery(loop, fallback, h, history) if loop else fallback
    else:
        chosen = recovery.for_rejection(reason, body, obs, h, history)
    return _result(
        _ast(chosen, recovery.secondary(chosen, obs, h, history)),
        GuardStatus.REJECTED,
        repairs,
        rejection=reason,
        fallback_used=True,
        loop=loop,
        detail=detail,
    )


_SAFE = ActionAST(
    action=WaitAction(reason="stale_state"), fallback=BackAction(reason="stale_state")
)


def screen_text(action: Any, obs: Observation, allow: Collection[str] | None) -> None:
    """The text checks every executable action passes, whoever built it (Table 44): the
    middle, a repair, a loop recovery or a synthesized fallback. Raises Rejected."""
    kind = action.type
    if kind == "type":
        check_text(action.text, "text")
        check_sensitive(action.text, obs.label(action.target), allow)
    elif kind in ("search", "maps"):
        check_text(action.query, "query")
        check_sensitive(action.query, None, allow)
        if kind == "maps" and action.location:
            check_text(action.location, "location")
            check_sensitive(action.location, None, allow)


def _screen(
    result: CompileResult,
    obs: Observation,
    history: RecentHistory,
    allow: Collection[str] | None,
) -> CompileResult:
    """`result` with any action or fallback that fails the text checks replaced by a text-free
    recovery, so no path (recovery, fallback, loop repair) is a side door around them."""
    ast = result.action
    if ast is None:
        return result
    failed: Rejected | None = None
    action: Any = ast.action
    fallback: FallbackAction = ast.fallback
    h = state_hash_of(obs, history)
    try:
        screen_text(fallback, obs, allow)
    except Rejected as r:
        failed = r
        fallback = recovery.target_absent(obs, h, history)
    try:
        screen_text(action, obs, allow)
    except Rejected as r:
        failed = failed or r
        action, fallback = fallback, recovery.secondary(fallback, obs, h, history)
    if failed is None:
        return result
    try:  # what replaced them is text-free or already screened; never trust that blindly
        screen_text(action, obs, allow)
        screen_text(fallback, obs, allow)
    except Rejected:
        action, fallback = _SAFE.action, _SAFE.fallback
    report = result.report
    detail = f"{failed.detail} (after {report.rejection.value if report.rejection else 'parse'})"
    return _result(
        ActionAST(action=action, fallback=fallback),
        GuardStatus.REJECTED,
        list(report.repairs),
        rejection=failed.reason,
        fallback_used=True,
        loop=report.loop,
        stale=report.stale,
        detail=f"{report.detail}; {detail}" if report.detail else detail,
    )


def compile_action(
    raw: str,
    observation: Observation,
    history: RecentHistory | None = None,
    *,
    geographic: bool = False,
    allow_sensitive: Collection[str] | None = None,
) -> CompileResult:
    """Compile one raw middle output into the post-guard Action AST plus its guard labels.

    `allow_sensitive` lists what the contract lets the agent type (credentials, payment,
    personal); None applies no input policy (page-instructed tasks such as MiniWoB's).
    """
    history = history or _EMPTY_HISTORY
    try:
        compiled = _compile(raw, observation, history, geographic, allow_sensitive)
        return _screen(compiled, observation, history, allow_sensitive)
    except Exception as e:  # the compiler's contract is "never raises"; surface, don't crash
        return _result(
            _SAFE,
            GuardStatus.REJECTED,
            [],
            rejection=RejectReason.INTERNAL_ERROR,
            fallback_used=True,
            detail=f"internal guard error: {type(e).__name__}: {str(e)[:200]}",
        )
