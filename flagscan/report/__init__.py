"""report: renderers only; no analysis happens here."""
