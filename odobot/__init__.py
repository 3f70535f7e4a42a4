"""`pathwise odobot`: record LMS demonstrations, build the OdoBot model, run held-out tasks
with OdoBot and with the full-observation baseline, and report success and tokens."""
