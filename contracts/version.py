"""Schema version shared by every contract model; bump on any breaking field change."""

SCHEMA_VERSION = "1.0"
