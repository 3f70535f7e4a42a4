"""agent_runtime."""
