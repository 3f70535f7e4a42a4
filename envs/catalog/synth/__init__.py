"""Seeded synthetic institutions in five platform families, with gold: KnowPlan, "Dense-6"."""
