"""rule data: TOML files read with tomllib through importlib.resources (no code)."""
