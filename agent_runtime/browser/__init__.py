"""Browser layer: headless Chromium session, set-of-mark observation, Action AST executor."""

from agent_runtime.browser.events import EventLog, InteractionEvent, LocationEvent, NetworkEvent
from agent_runtime.browser.executor import ExecResult, Executor
from agent_runtime.browser.launch import BrowserMissingError, BrowserSession, check_chromium
from contracts.search import SearchProvider

__all__ = [
    "BrowserMissingError",
    "BrowserSession",
    "EventLog",
    "ExecResult",
    "Executor",
    "InteractionEvent",
    "LocationEvent",
    "NetworkEvent",
    "SearchProvider",
    "check_chromium",
]
