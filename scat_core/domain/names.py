"""Names and identifiers: one schema for what `scat new` makes and what an import may hold.

A player name is normalised (Unicode NFKC, trimmed) before a game is created, and two names
of one game may not look alike: not equal ignoring case (`Ann`, `ann`), nor after mapping
letters that look the same (`ann` in Latin and `аnn` with a Cyrillic а), a small skeleton
in the spirit of Unicode TS #39. Game ids, seeds, salts and commitments have the forms this
program writes; anything else in a history is refused.
"""

from __future__ import annotations

import re
import unicodedata

#: 1 to 32 letters, digits, spaces, . ' - or _; starting with a letter, digit or _.
NAME_RE = re.compile(r"[\w][\w .'-]{0,31}")
NAME_RULE = "1 to 32 letters, digits, spaces, . ' - or _"
#: The id `scat new` makes: 10 lowercase hex digits (secrets.token_hex(5)).
GAME_ID_RE = re.compile(r"[0-9a-f]{10}")
#: A seed: a decimal integer (random, or given with --seed), at most 100 digits.
SEED_RE = re.compile(r"-?[0-9]{1,100}")
SALT_RE = re.compile(r"[0-9a-f]{32}")
HEX64_RE = re.compile(r"[0-9a-f]{64}")

# Letters of other scripts (and a few symbols) that look like a Latin letter, after casefold.
_LOOKALIKES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s",
    "т": "t", "у": "y", "ԝ": "w", "х": "x", "ү": "y", "ɡ": "g", "ь": "b", "п": "n", "г": "r",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u",
    # Armenian, Latin extensions and digits that pass for letters
    "օ": "o", "ս": "u", "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "đ": "d", "ħ": "h",
    "0": "o", "1": "l", "|": "l", "5": "s",
    # separators that read alike
    "_": " ", "-": " ",
})


def normalize_name(name: str) -> str:
    """A player name as it is stored: Unicode NFKC, leading and trailing spaces removed."""
    return unicodedata.normalize("NFKC", name).strip()


def name_problem(name: str) -> str | None:
    """What is wrong with a player name as stored in a history (normal form, characters), or None."""
    if not NAME_RE.fullmatch(name):
        return f"{name!r} is not a usable player name: {NAME_RULE}"
    if name != normalize_name(name):
        return f"{name!r} is not a normalised player name (Unicode NFKC, no spaces at either end)"
    return None


def skeleton(name: str) -> str:
    """What a name looks like: casefolded, accents dropped, look-alike letters merged."""
    upper_i_as_l = normalize_name(name).replace("I", "l")  # `Il` and `ll` (before casefold makes I an i)
    decomposed = unicodedata.normalize("NFKD", upper_i_as_l.casefold())
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    merged = bare.translate(_LOOKALIKES).replace("rn", "m").replace("vv", "w")
    return " ".join(merged.split())


def look_alike(names: list[str]) -> tuple[str, str] | None:
    """The first two names of `names` that look alike (same skeleton), or None."""
    seen: dict[str, str] = {}
    for name in names:
        key = skeleton(name)
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None


def is_game_id(value: object) -> bool:
    """Whether `value` is a game id of the form `scat new` makes."""
    return isinstance(value, str) and GAME_ID_RE.fullmatch(value) is not None
