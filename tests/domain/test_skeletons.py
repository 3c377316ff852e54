"""Names that look alike are one name: the look of UTS #39 (names.py) over Unicode's own
confusables.txt, the look-alikes that passed before, and a few thousand generated from the file."""

from __future__ import annotations

import random
import string
import unicodedata
from importlib import resources

import pytest

from scat_core.domain.names import SKELETON_VERSION, look_of, looks_of, name_problem, normalize_name, unicode_version

ISSUE_LOOK_ALIKES = {"ann": ["ɑnn", "aոո", "ᴀnn", "Ꭺnn", "аnn", "ANN", "Ann"], "eve": ["eᴠe", "evє", "еve"],
                     "cid": ["cɩd", "ciɗ", "cіd"]}


def meet(one: str, other: str) -> bool:
    """Whether two names are one name to the eye: a look of one is a look of the other."""
    return bool(set(looks_of(one)) & set(looks_of(other)))


def confusables() -> dict[str, str]:
    """Unicode's file as shipped, read here on its own: source character -> prototype."""
    text = resources.files("scat_core.domain").joinpath("data", "confusables.txt").read_text(encoding="utf-8-sig")
    found = {}
    for line in text.splitlines():
        fields = [field.strip() for field in line.split("#", 1)[0].split(";")]
        if len(fields) >= 2 and fields[0]:
            found[chr(int(fields[0], 16))] = "".join(chr(int(point, 16)) for point in fields[1].split())
    return found


@pytest.mark.parametrize(("name", "alike"), [(name, alike) for name, alikes in ISSUE_LOOK_ALIKES.items()
                                             for alike in alikes])
def test_each_look_alike_that_passed_before_has_the_look_of_the_name_it_imitates(name: str, alike: str) -> None:
    assert look_of(alike) == look_of(name) == name


def test_the_shipped_file_is_unicodes_with_its_version_named() -> None:
    raw = resources.files("scat_core.domain").joinpath("data", "confusables.txt").read_bytes()
    assert raw.startswith("\ufeff# confusables.txt".encode()) and b"Unicode Security Mechanisms for UTS #39" in raw
    assert unicode_version() == "13.0.0" and SKELETON_VERSION == 2
    assert len(confusables()) > 6000


def lookalikes_of_latin() -> dict[str, list[str]]:
    """Each Latin letter (either case): the letters Unicode's file gives it as prototype, those a
    stored name keeps (NFKC leaves them be: `ſ`, a look-alike of `f`, is stored as `s`)."""
    table: dict[str, list[str]] = {letter: [] for letter in string.ascii_letters}
    for source, target in confusables().items():
        if (target in table and unicodedata.category(source).startswith("L")
                and unicodedata.normalize("NFKC", source) == source):
            table[target].append(source)
    return table


def test_a_few_thousand_generated_look_alikes_each_have_the_look_of_their_name() -> None:
    rng = random.Random(39)
    table = lookalikes_of_latin()
    letters = [letter for letter in string.ascii_lowercase if table[letter] or table[letter.upper()]]
    checked = 0
    for _ in range(3000):
        name = "".join(rng.choice(letters) for _ in range(rng.randint(3, 10)))
        written = name if rng.random() < 0.6 else name.upper() if rng.random() < 0.5 else name.title()
        alike = "".join(rng.choice(table[char]) if table[char] and rng.random() < 0.5 else char for char in written)
        if name_problem(normalize_name(alike)) is not None:  # not a usable name at all (a symbol, say)
            continue
        assert meet(alike, name), (name, alike, [hex(ord(char)) for char in alike])
        checked += 1
    assert checked > 2000


def test_names_of_different_latin_letters_keep_different_looks() -> None:
    rng = random.Random(31)
    seen: dict[str, str] = {}
    for _ in range(3000):
        name = "".join(rng.choice("abcdefghijkpqstuvxyz") for _ in range(rng.randint(3, 8)))  # no l, m, n, o, r, w
        assert seen.setdefault(look_of(name), name) == name
    assert len({look_of(letter) for letter in string.ascii_lowercase}) == 26


@pytest.mark.parametrize(("one", "other"), [("Il", "ll"), ("rnary", "mary"), ("0scar", "oscar"), ("José", "Jose"),
                                            ("mary_ann", "mary ann"), ("ｍａｒｙ", "mary"), ("ΝΑΝ", "nan"),
                                            ("GURTHUFI", "gurthufi")])
def test_look_alikes_within_latin_and_digits_share_a_look_too(one: str, other: str) -> None:
    assert meet(one, other)


@pytest.mark.parametrize(("one", "other"), [("ali", "all"), ("ann", "anna"), ("bob", "bop"), ("nu", "vu")])
def test_names_that_only_share_letters_are_not_taken_for_each_other(one: str, other: str) -> None:
    assert not meet(one, other)


def test_the_refresh_script_takes_unicodes_file_and_refuses_anything_else() -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "refresh_confusables.py"
    spec = importlib.util.spec_from_file_location("refresh_confusables", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    shipped = resources.files("scat_core.domain").joinpath("data", "confusables.txt").read_text(encoding="utf-8-sig")
    assert script.version_of(shipped) == unicode_version()
    for other in ("<html>not found</html>", shipped.replace("0251 ;\t0061 ;", "0251 ; 0061 ;")):
        with pytest.raises(ValueError, match="not Unicode's confusables.txt"):
            script.version_of(other)
