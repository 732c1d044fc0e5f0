"""evaluate: the startup phase (what SGLang runs and rejects after resolution, before serving)."""
