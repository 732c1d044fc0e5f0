"""facts: the intermediate representation extracted from SGLang (frozen, JSON-serialisable, no I/O)."""

from flagscan.facts.flags import Flag, Inventory, Location, UnknownValue

__all__ = ["Flag", "Inventory", "Location", "UnknownValue"]
