"""Acquisition metrics for CatalogBrowse runs: KnowPlan, "Metrics" and Tables 1-2."""
