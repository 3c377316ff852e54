"""The scat command line."""
