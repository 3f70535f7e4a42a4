"""`pathwise odobot train`: OdoBot's two students, from the training runs to merged models."""
