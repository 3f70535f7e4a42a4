"""Small helpers every package may import: never-overwrite outputs, CLI errors and options,
a local sentence-embedding loader. Nothing here imports the rest of the project."""
