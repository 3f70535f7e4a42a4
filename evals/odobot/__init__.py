"""OdoBot against the full-observation baseline on held-out LMS tasks: arms, report, command."""
