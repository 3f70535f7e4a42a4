"""Environments: MiniWoB++ pages and local sites, served on 127.0.0.1."""
