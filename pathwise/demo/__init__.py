"""`pathwise demo`: the main job: collect, export, train, serve, evaluate, report."""
