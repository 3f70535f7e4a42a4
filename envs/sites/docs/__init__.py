"""The help/docs contract site: troubleshooting articles, firmware applicability, release notes."""
