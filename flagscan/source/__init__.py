"""source: get SGLang's sglang/ package tree at a pinned revision, cached."""

from flagscan.source.cache import clear_cache, default_cache_dir, list_cached
from flagscan.source.fetch import get_source
from flagscan.source.gitsrc import DEFAULT_GIT_URL
from flagscan.source.model import SourceError, SourceTree
from flagscan.source.pin import resolve_pin

__all__ = [
    "DEFAULT_GIT_URL",
    "SourceError",
    "SourceTree",
    "clear_cache",
    "default_cache_dir",
    "get_source",
    "list_cached",
    "resolve_pin",
]
