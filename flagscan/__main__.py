"""entry point for `python -m flagscan`."""
from flagscan.cli import run

if __name__ == "__main__":
    run()
