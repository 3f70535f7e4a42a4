"""Base models as data: the registry of known bases and the importer that makes them local."""

from base_models.registry import ModelEntry, Registry, load_registry

__all__ = ["ModelEntry", "Registry", "load_registry"]
