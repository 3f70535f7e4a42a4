"""The web framework every local application shares: an ASGI app served on 127.0.0.1 only,
SQLite seeding, a Jinja environment with a shared base layout, access walls, data-file loading."""

from envs.webapp.datafile import DataFileError, load_model_file, write_model_file
from envs.webapp.db import SqliteStore
from envs.webapp.server import AppServer, LoopbackOnly, is_loopback
from envs.webapp.templating import make_templates
from envs.webapp.walls import WALL_KINDS, WallKind, install_login, wall_response

__all__ = [
    "WALL_KINDS",
    "AppServer",
    "DataFileError",
    "LoopbackOnly",
    "SqliteStore",
    "WallKind",
    "install_login",
    "is_loopback",
    "load_model_file",
    "make_templates",
    "wall_response",
    "write_model_file",
]
