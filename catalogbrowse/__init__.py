"""CatalogBrowse: KnowPlan, "CatalogBrowse: School-Level Catalog Exploration" (the agent)."""
