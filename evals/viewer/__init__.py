"""Local trace viewer: runs, one rollout step by step, and two runs side by side."""
