"""Offline eval of a middle layer on held-out SFT records (WebRider Appendix E)."""
