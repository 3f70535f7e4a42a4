"""Search and Maps providers: WebRider Appendix H, "Search and Maps grounding", Figure 9."""

from __future__ import annotations

import os
from urllib.parse import quote_plus

from pydantic import BaseModel, ConfigDict


class SearchProvider(BaseModel):
    """URL templates for `search` and `maps`; `{query}` and `{location}` are URL-encoded.

    Live runs point at a real engine; tests and offline demos point at the local fixture
    site's search page, so the same Action AST runs with no outside network.
    """

    model_config = ConfigDict(frozen=True)
    search_template: str
    maps_template: str

    def search_url(self, query: str) -> str:
        return self.search_template.format(query=quote_plus(query), location="")

    def maps_url(self, query: str, location: str | None = None) -> str:
        # Table 45: a maps action carries the task location when one is supplied.
        loc = quote_plus(location or "")
        q = quote_plus(f"{query} {location}" if location else query)
        return self.maps_template.format(query=q, location=loc)

    @classmethod
    def google(cls) -> SearchProvider:
        return cls(
            search_template="https://www.google.com/search?q={query}",
            maps_template="https://www.google.com/maps/search/{query}",
        )

    @classmethod
    def local(cls, base_url: str) -> SearchProvider:
        """The fixture search and maps pages of tests/helpers/local_sites."""
        base = base_url.rstrip("/")
        return cls(
            search_template=base + "/search.html?q={query}",
            maps_template=base + "/maps.html?q={query}&near={location}",
        )

    @classmethod
    def from_env(cls, default: SearchProvider | None = None) -> SearchProvider:
        """PATHWISE_SEARCH_URL / PATHWISE_MAPS_URL override the templates (e.g. a SearXNG)."""
        base = default or cls.google()
        return cls(
            search_template=os.environ.get("PATHWISE_SEARCH_URL", base.search_template),
            maps_template=os.environ.get("PATHWISE_MAPS_URL", base.maps_template),
        )
