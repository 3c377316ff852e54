"""Names and identifiers: what a player name, game id, seed or salt may be, and what a name looks like.

A player name is normalised (Unicode NFKC, trimmed) before a game is created, and two names
of one game may not look alike: not equal ignoring case (`Ann`, `ann`), nor after mapping
letters that look the same (`ann` in Latin and `аnn` with a Cyrillic а), a small skeleton
in the spirit of Unicode TS #39. Game ids, seeds, salts and commitments have the forms this
program writes; anything else in a history is refused.

What a name looks like to an account server, from Unicode's own data (UTS #39): one account name per look.

A name's *look* (its skeleton, version SKELETON_VERSION) is the same for every name a reader
could take for it, whatever its letters' case or script:

1. Unicode NFKC, trimmed, runs of spaces made one (`ｍａｒｙ` is `mary`), lower-cased (not
   case folded, which changes some letters' shapes: `ς` folds to `σ`, an `o` to the eye;
   names that differ by folding only, `ß` and `ss`, meet in `skeleton`);
2. each character (NFD) replaced by the look of its class in `confusables.txt` (`data/`,
   Unicode's file, its version `unicode_version()`) plus scat's own `lookalikes-scat.txt`:
   the Latin letter or digit of the class, in lower case; a class of no Latin letter takes
   the one its letters' other case has (`ꭺ → ᴀ` in Unicode's data, and `ꭺ`'s capital `Ꭺ` is
   `A`: so `ᴀ` is `a`); a character Unicode maps to several (`m` to `rn`, `ɗ` to `d` and a
   hook) is replaced by them;
3. the combining marks dropped (`José` and `Jose`, `ɗ`'s hook), `_` and `-` read as spaces,
   lower-cased again; then steps 2 and 3 again until nothing changes.

A name written with capitals has a second look, the same steps without lower-casing first
(`ΝΑΝ`, Greek capitals, reads as `NAN`, though its lower case `ναν` reads as `vav`), an `I`
read as the `i` it is in the name, and then as the `l` it looks like (`Il` and `ll`): a name
is refused when any look of it is any look of a name taken (`looks_of`).

So `ɑnn`, `aոո`, `ᴀnn`, `Ꭺnn` and `ann` have one look; so do `eᴠe`, `evє` and `eve`. The
look is versioned: a new `confusables.txt` or rule is a new SKELETON_VERSION, and the server's
name index (a projection of the account events, `store/sql/account_log.py`) is rebuilt for it,
so no account is lost to it. Games keep the older `skeleton` above (their audits replay it).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib import resources

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


def look_alike(names: list[str], looks: int = 1) -> tuple[str, str] | None:
    """The first two names of `names` that look alike, or None: by `skeleton` in a game whose names
    are told apart by it (`looks` 1, GameCreated.name_looks: the games made before), and also by
    Unicode's confusables (`looks_of`, as account names are) in one made since (`looks` 2)."""
    seen: dict[tuple[int, str], str] = {}
    for name in names:
        keys = [(1, skeleton(name)), *((2, look) for look in (looks_of(name) if looks >= 2 else ()))]
        taken = next((seen[key] for key in keys if key in seen), None)
        if taken is not None:
            return taken, name
        for key in keys:
            seen.setdefault(key, name)
    return None


def is_game_id(value: object) -> bool:
    """Whether `value` is a game id of the form `scat new` makes."""
    return isinstance(value, str) and GAME_ID_RE.fullmatch(value) is not None


#: The version of the look: 1 is `skeleton` (scat's own table), 2 this one.
SKELETON_VERSION = 2
#: How a new game tells its players' names apart (GameCreated.name_looks, `look_alike`): by both.
NAME_LOOKS = 2
_FILES = ("confusables.txt", "lookalikes-scat.txt")
_SEPARATORS = str.maketrans({"_": " ", "-": " "})


def _lines(name: str) -> list[str]:
    return resources.files("scat_core.domain").joinpath("data", name).read_text(encoding="utf-8-sig").splitlines()


@cache
def unicode_version() -> str:
    """The Unicode version of the confusables.txt shipped (its `# Version:` line)."""
    return next(line.split(":", 1)[1].strip() for line in _lines(_FILES[0]) if line.startswith("# Version:"))


@cache
def _table() -> dict[str, str]:
    """Each character of a class of look-alikes: the look it is given (its class's face)."""
    prototype: dict[str, str] = {}
    for name in _FILES:
        for line in _lines(name):
            fields = [field.strip() for field in line.split("#", 1)[0].split(";")]
            if len(fields) >= 2 and fields[0]:
                prototype[chr(int(fields[0], 16))] = "".join(chr(int(point, 16)) for point in fields[1].split())
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            char = parent[char]
        return char

    for source, target in prototype.items():  # Unicode's classes: a character and its one-character prototype
        if len(target) == 1:
            first, second = root(source), root(target)
            if first != second:
                parent[max(first, second)] = min(first, second)
    classes: dict[str, list[str]] = {}
    for char in {*parent, *parent.values()}:
        classes.setdefault(root(char), []).append(char)
    faces = {key: _latin_face(members) for key, members in classes.items()}
    for key, members in classes.items():  # a class of no Latin letter whose other case is one (ꭺ, Ꭺ: A)
        if faces[key] is None:
            bridged = {faces.get(root(other)) for char in members if not char.isascii()
                       for other in {char.upper(), char.lower()}
                       if len(other) == 1 and other != char and not other.isascii()}
            faces[key] = min((face for face in bridged if face is not None), default=None)
    looks = {char: face if face is not None else min(classes[key]).lower()
             for key, face in faces.items() for char in classes[key]}
    for key, latin in faces.items():  # a letter of no class whose other case looks Latin (ⲙ, as Ⲙ: m)
        for char in classes[key] if latin is not None else ():
            for other in {char.upper(), char.lower()}:
                if latin is not None and len(other) == 1 and not other.isascii() and other not in looks:
                    looks[other] = latin
    for source, target in prototype.items():  # several characters for one (m: rn; ɗ: d and a hook)
        if len(target) > 1:
            looks[source] = target
    return looks


def _latin_face(members: list[str]) -> str | None:
    """The Latin letter or digit (case folded) a class of look-alikes shows, if it has one."""
    latin = sorted(char for char in members if char.isascii() and char.isalnum())
    return min(latin, key=lambda char: (not char.isalpha(), not char.islower(), char)).lower() if latin else None


def looks_of(name: str) -> tuple[str, ...]:
    """The looks of `name` (SKELETON_VERSION): two names a reader could take for each other share
    one. Its look in lower case first (`look_of`), then as written where that differs (an upper
    case `Ν` reads as `N`, lower case `ν` as `v`)."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    looks = [_look(text.lower()), _look(text.replace("I", "i")), _look(text)]  # an `I` is an `i`, and looks an `l`
    return tuple(dict.fromkeys(looks))


def look_of(name: str) -> str:
    """The look of `name` in lower case (the first of `looks_of`): `ANN`, `Ann`, `ᴀnn` and `ann` share it."""
    return looks_of(name)[0]


def _look(text: str) -> str:
    table = _table()
    for _ in range(4):
        spread = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
        bare = "".join(char for char in unicodedata.normalize("NFD", spread) if not unicodedata.combining(char))
        again = " ".join(bare.translate(_SEPARATORS).lower().split())
        if again == text:
            break
        text = again
    return text
