"""Middle-layer SFT export: guarded step rows to TRL conversational VLM records (WebRider E)."""
