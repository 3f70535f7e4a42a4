"""Evaluation: offline action/target match, live insertion, statistics, token accounting."""
