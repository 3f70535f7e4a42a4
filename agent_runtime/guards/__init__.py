"""Guard stack: WebRider Appendix H, Tables 44-46 (compiler, repairs, rejections, loops, access).

Exports are lazy so `pathwise --help` (which imports guards.cli) never pays for pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_runtime.guards.access import detect_access_signal
    from agent_runtime.guards.compiler import compile_action

__all__ = ["compile_action", "detect_access_signal"]


def __getattr__(name: str) -> Any:
    if name == "compile_action":
        from agent_runtime.guards.compiler import compile_action

        return compile_action
    if name == "detect_access_signal":
        from agent_runtime.guards.access import detect_access_signal

        return detect_access_signal
    raise AttributeError(name)
