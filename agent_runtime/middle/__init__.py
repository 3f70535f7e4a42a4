"""Middle-layer policies: one protocol, heuristic and endpoint implementations."""
