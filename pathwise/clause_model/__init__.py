"""`pathwise catalog clause-model train`: KnowPlan's clause-to-AST model, one command to a working
model (export, train, merge, score, model card)."""
