"""The web framework every local application shares: an ASGI app served on 127.0.0.1 only."""

from agent_runtime.envs.webapp.server import AppServer, LoopbackOnly, is_loopback

__all__ = ["AppServer", "LoopbackOnly", "is_loopback"]
