from planner_fixtures import cfg  # noqa: F401  (fixture)
