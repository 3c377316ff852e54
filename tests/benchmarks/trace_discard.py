"""How many of Scat's files a local `scat discard` runs code in, beside the goal of issue #41.

Run: .venv/bin/python tests/benchmarks/trace_discard.py

A game against two bots is made on a fresh SQLite database, the human draws, then one
`scat discard` runs in a process of its own under `sys.settrace`, which sees every Python
frame: module bodies (an import) and functions alike. Printed: the files of scat_core and
scat_cli that ran any code, those that ran a function (not only their module body), and the
hand-overs between two of these files (a call whose caller is in another file). The baseline
is what the redesign started from (issue #41: 81–93 files, 613 hand-overs); the goal is half
the files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINE_FILES = 111  # measured by this script at commit 9a0b528, before the redesign (issue #41)
GOAL_FILES = BASELINE_FILES // 2

TRACED = r"""
import json, sys
from pathlib import Path
roots = tuple(str(Path(p).resolve()) for p in sys.argv[1:3])
ran, functions, handovers = set(), set(), 0

def trace(frame, event, arg):
    global handovers
    name = frame.f_code.co_filename
    if name.startswith(roots):
        ran.add(name)
        if frame.f_code.co_name != "<module>":
            functions.add(name)
        caller = frame.f_back
        if caller is not None and caller.f_code.co_filename != name and caller.f_code.co_filename.startswith(roots):
            handovers += 1
    return None

sys.settrace(trace)
from scat_cli.app import main
sys.argv = ["scat", *sys.argv[3:]]
try:
    main()
except SystemExit as stop:
    code = stop.code
else:
    code = 0
sys.settrace(None)
print(json.dumps({"ran": sorted(ran), "functions": sorted(functions), "handovers": handovers, "exit": code}),
      file=sys.stderr)
"""


def scat(env: dict[str, str], *args: str) -> str:
    """Run `scat ARGS` in a process of its own; its standard output (a failure raises)."""
    done = subprocess.run([sys.executable, "-m", "scat_cli", *args], env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, SCAT_DB_URL=f"sqlite:///{folder}/scat.db", XDG_CONFIG_HOME=folder,
                   XDG_DATA_HOME=folder, HOME=folder)
        game = json.loads(scat(env, "new", "--player", "you", "--bot", "ann", "--bot", "bob", "--seed", "7",
                               "--dealer", "bob", "--json"))["game_id"]
        hand = json.loads(scat(env, "draw", game, "--as", "you", "stock", "--json"))
        card = hand["hand"][0]
        package_roots = [str(ROOT / "scat_core"), str(ROOT / "scat_cli")]
        done = subprocess.run([sys.executable, "-c", TRACED, *package_roots, "discard", game, "--as", "you", card],
                              env=env, capture_output=True, text=True, check=False)
        report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["exit"] == 0, done.stderr
    ran, functions = report["ran"], report["functions"]
    print(f"a local `scat discard` (3 players, 2 bots replying), Python {sys.version.split()[0]}")
    print(f"{'files that ran code':<40} {len(ran):>4}   goal <= {GOAL_FILES} (half the {BASELINE_FILES} "
          f"before issue #41)   {'MET' if len(ran) <= GOAL_FILES else 'MISSED'}")
    print(f"{'files whose functions ran':<40} {len(functions):>4}")
    print(f"{'hand-overs between these files':<40} {report['handovers']:>4}")
    if "--list" in sys.argv:
        for name in ran:
            print(("  f " if name in functions else "  m ") + str(Path(name).relative_to(ROOT)))


if __name__ == "__main__":
    main()
