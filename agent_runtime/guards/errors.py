"""Internal rejection signal for the guard compiler: WebRider Appendix H, Table 45."""

from __future__ import annotations

from contracts.guard_labels import RejectReason


class Rejected(Exception):
    """A verdict, not a crash: compile_action turns it into a labeled rejection."""

    def __init__(self, reason: RejectReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
