"""`python -m scat_cli`: the same as the `scat` command."""

from __future__ import annotations

from scat_cli.app import main

if __name__ == "__main__":
    main()
