"""Contract-gated success over a run folder: gates, denominators, counterfactual statistics."""
