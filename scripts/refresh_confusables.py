"""Replace scat's copy of Unicode's confusables.txt with the latest one Unicode publishes.

    python scripts/refresh_confusables.py [--url URL]

For a developer with the network: it downloads the file (UTS #39, Unicode Security
Mechanisms) from unicode.org, checks that it is one (its header, its entries), writes it over
scat_core/domain/data/confusables.txt byte for byte, and says its version and SHA-256. Then:
raise SKELETON_VERSION in scat_core/domain/names.py (a server's name index is folded anew
for it from the account events), name the version and the SHA-256 in
scat_core/domain/data/README.md and tests/domain/test_skeletons.py, and run the tests.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import urllib.request
from pathlib import Path

LATEST = "https://www.unicode.org/Public/security/latest/confusables.txt"
TARGET = Path(__file__).resolve().parents[1] / "scat_core" / "domain" / "data" / "confusables.txt"
ENTRY = re.compile(r"[0-9A-F]{4,6} ;\t[0-9A-F]{4,6}( [0-9A-F]{4,6})* ;\tMA\t#")


def version_of(text: str) -> str:
    """The `# Version:` of a confusables.txt; ValueError when it is no such file."""
    if not text.lstrip("\ufeff").startswith("# confusables.txt") or "Unicode Security Mechanisms" not in text:
        raise ValueError("not Unicode's confusables.txt (its header is missing)")
    found = re.search(r"^# Version: (\S+)$", text, re.MULTILINE)
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    if found is None or len(entries) < 5000 or not all(ENTRY.match(line) for line in entries):
        raise ValueError("not Unicode's confusables.txt (its version or its entries are not as Unicode writes them)")
    return found.group(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=LATEST, help=f"where to download it from (default: {LATEST})")
    url = parser.parse_args().url
    with urllib.request.urlopen(url, timeout=60) as answer:  # noqa: S310 - a URL the developer chose
        raw = answer.read()
    text = raw.decode("utf-8")
    old = version_of(TARGET.read_text(encoding="utf-8-sig"))
    new = version_of(text)
    TARGET.write_bytes(raw)
    print(f"confusables.txt: Unicode {old} -> {new}, SHA-256 {hashlib.sha256(raw).hexdigest()}")
    if new != old:
        print("now raise SKELETON_VERSION (scat_core/domain/names.py), name the version in "
              "scat_core/domain/data/README.md and tests/domain/test_skeletons.py, and run the tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
