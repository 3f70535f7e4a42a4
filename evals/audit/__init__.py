"""Blinded paired human audit: WebRider Appendix G (PCS and HCP)."""
