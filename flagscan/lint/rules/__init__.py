"""lint: the lint rules, one module each (fsNNN_name.py); see rules/lint.toml for the families."""
