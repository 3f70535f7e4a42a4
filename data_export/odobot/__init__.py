"""OdoBot's two students' SFT data: the small prompts and the full-observation steps."""
