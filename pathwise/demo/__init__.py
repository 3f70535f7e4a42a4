"""`pathwise demo`: the end-to-end main job (collect -> export -> train -> serve -> eval -> report)."""
