"""diffing: two SGLang revisions -> what changed (flags, effects, gates, a unit's configuration)."""
