"""The scat command line.

Start-up: a command first imports a few hundred modules, whose tens of thousands of objects
all live until it exits. Python's cyclic garbage collector would scan them again and again
while they load (about a tenth of a command's time), finding nothing to free. So the
collector waits (a high first threshold) until the command has loaded what it needs:
`scat_cli.wiring.loaded` then freezes those objects out of its sight and restores the
usual thresholds, for whatever the command goes on to do.
"""

from __future__ import annotations

import gc

#: The collector's thresholds before scat changed them (restored by `service.loaded`).
GC_THRESHOLDS = gc.get_threshold()
gc.set_threshold(max(GC_THRESHOLDS[0], 200_000), *GC_THRESHOLDS[1:])
