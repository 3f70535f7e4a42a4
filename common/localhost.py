"""Which requests a local app answers: loopback clients, loopback Host headers, local Origins.

Binding 127.0.0.1 keeps the network out, but not a web page in the user's own browser: a
DNS-rebinding page (evil.example resolving to 127.0.0.1) reaches a local port with its own name
in the Host header, and any page can POST a form to one. Every local server therefore answers
only a Host of 127.0.0.1, localhost or [::1] (any port), and refuses a state-changing request
whose Origin is another site.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def is_loopback(host: str | None) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost; anything else (or nothing) is refused."""
    if not host:
        return False
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_host_header(host: str | None) -> bool:
    """A Host header naming this machine: '127.0.0.1:8000', 'localhost', '[::1]:9'."""
    if not host:
        return False
    try:
        name = urlsplit(f"//{host}").hostname
        urlsplit(f"//{host}").port  # noqa: B018 (raises on a malformed port)
    except ValueError:
        return False
    return is_loopback(name)


def local_origin(origin: str | None) -> bool:
    """An Origin header of a page served from this machine (absent counts as local)."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
        parts.port  # noqa: B018
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback(parts.hostname)


def refusal(method: str, host: str | None, origin: str | None) -> str | None:
    """Why a request is refused, or None when it may be answered."""
    if not local_host_header(host):
        return "this server answers Host 127.0.0.1, localhost or [::1] only"
    if method.upper() not in SAFE_METHODS and not local_origin(origin):
        return "cross-origin request refused"
    return None
