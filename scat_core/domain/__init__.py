"""The pure domain of Scat: rules, events, decide and evolve. No I/O, no database."""
