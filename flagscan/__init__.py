"""flagscan: what SGLang launch flags really do on a GPU, read from SGLang's own source."""

__version__ = "0.1.0"
