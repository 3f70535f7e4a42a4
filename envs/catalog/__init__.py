"""Frozen catalog snapshots, their precommit gate and generators: KnowPlan, "CatalogBrowse"."""
