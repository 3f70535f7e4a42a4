"""Top layers: the rule top and the LLM top, both keeping the intent contract."""
