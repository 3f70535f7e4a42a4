"""Pathwise: guarded web agents and exact planners, from rollouts to served students."""

__version__ = "0.1.0"
