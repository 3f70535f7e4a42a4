"""MiniWoB++: the miniwob wheel's real pages served on 127.0.0.1, seeded tasks and contracts."""
