"""data_export: step rows and synthetic catalog clauses to SFT datasets (WebRider App. E; KnowPlan).

Never talks to a browser or a model, and never imports torch at import time.
"""

EXPORTER_VERSION = "1.0.0"
