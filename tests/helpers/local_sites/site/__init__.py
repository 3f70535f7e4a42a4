"""Fixture pages (package data)."""
