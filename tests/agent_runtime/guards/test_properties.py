"""Property tests: the guard compiler never raises and always yields a grammar-valid action,
a labeled rejection with a fallback, or an external-access stop (issue 2, "Done means")."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_runtime.guards import compile_action
from contracts.actions import ACTION_TYPES, ActionAST
from contracts.guard_labels import CompileResult, GuardStatus
from contracts.history import RecentAction, RecentHistory

from .conftest import load_obs

OBS = load_obs()
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_leaf = st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    json_leaf,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c, max_size=5),
    max_leaves=20,
)
keys = st.sampled_from(
    [
        "type",
        "action",
        "fallback",
        "target",
        "label",
        "element",
        "text",
        "value",
        "query",
        "q",
        "direction",
        "seconds",
        "reason",
        "location",
        "submit",
        "id",
        "name",
        "thought",
    ]
)
type_names = st.sampled_from(
    [
        *ACTION_TYPES,
        "google_search",
        "go_back",
        "google_maps",
        "scroll_down",
        "tap",
        "fill",
        "answer",
        "stop",
        "done",
        "hover",
        "Click",
        "GO-BACK",
        "",
    ]
)
field_values = (
    st.integers(-2, 20)
    | st.sampled_from(
        ["12", "[2]", "the blue button", "", "window", "up", "down", "history", "loading", "hub"]
    )
    | st.floats(-1, 10)
    | st.none()
    | st.booleans()
)
action_like = st.fixed_dictionaries({"type": type_names}, optional={}).flatmap(
    lambda d: st.dictionaries(
        keys.filter(lambda k: k not in ("action", "fallback")), field_values, max_size=4
    ).map(lambda extra: {**extra, **d})
)
wrapped = st.fixed_dictionaries(
    {"action": action_like}, optional={"fallback": action_like | json_values}
)
renderings = st.sampled_from(
    ["{}", "```json\n{}\n```", "Sure: {} hope it helps", "```\n{}", "{}\n{}"]
)


def check(res: CompileResult) -> None:
    assert isinstance(res, CompileResult)
    report = res.report
    if res.action is None:
        assert report.external_access is not None  # the only way automation stops
        return
    dumped = res.action.model_dump()
    assert ActionAST.model_validate(dumped) == res.action
    json.dumps(res.to_line())
    if report.status is GuardStatus.REJECTED:
        assert report.rejection is not None
        assert report.fallback_used or report.stale
        assert res.action.action.type in {"scroll", "search", "maps", "back", "wait"}
    else:
        assert report.rejection is None


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(raw):
    check(compile_action(raw, OBS))


@SETTINGS
@given(json_values)
def test_arbitrary_json_never_raises(value):
    check(compile_action(json.dumps(value), OBS))


@SETTINGS
@given(wrapped | action_like, renderings, st.booleans())
def test_action_shaped_json_in_any_rendering(obj, template, geographic):
    raw = template.replace("{}", json.dumps(obj), 1)
    res = compile_action(raw, OBS, geographic=geographic)
    check(res)
    if res.action is not None and res.report.status is not GuardStatus.REJECTED:
        act = res.action.action
        if hasattr(act, "target") and isinstance(act.target, int):
            assert OBS.label(act.target) is not None  # never acts on an invisible label


@SETTINGS
@given(
    wrapped,
    st.lists(
        st.tuples(
            st.sampled_from([OBS.state_hash, "a", "b"]),
            st.sampled_from(["scroll", "click", "back"]),
        ),
        max_size=6,
    ),
    st.sampled_from([None, 200, 302, 403, 429, 503]),
)
def test_any_history_and_status(obj, steps, status):
    hist = RecentHistory()
    for i, (h, kind) in enumerate(steps):
        hist = hist.push(
            RecentAction(
                step_index=i,
                url="u",
                action=json.dumps({"type": kind}),
                action_type=kind,
                state_hash=h,
            )
        )
    obs = OBS.model_copy(update={"status": status})
    check(compile_action(json.dumps(obj), obs, hist))
