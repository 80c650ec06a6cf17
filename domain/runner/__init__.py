"""The runner's rules: budgets, names and the run lifecycle (methodology sections 7 and 11)."""
