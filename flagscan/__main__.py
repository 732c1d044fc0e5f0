"""entry point for `python -m flagscan`."""
from flagscan.cli import main

if __name__ == "__main__":
    main()
