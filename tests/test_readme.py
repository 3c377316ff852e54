"""The README's two commands are the single source of truth that CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
CI_RUN = (REPO / ".ci" / "run").read_text(encoding="utf-8")


def block(marker: str) -> list[str]:
    """The command lines between <!-- marker --> and <!-- /marker --> in the README."""
    match = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```\n<!-- /{marker} -->", README,
                      re.DOTALL)
    assert match, f"README.md has no {marker} block"
    return match.group(1).splitlines()


def test_the_readme_has_exactly_one_test_command_that_installs_and_runs_pytest() -> None:
    (command,) = block("test-command")
    assert command.startswith("python3 -m venv .venv && ")
    assert "pip install -e '.[test]'" in command and command.endswith(".venv/bin/pytest -n auto")
    assert "pytest-xdist" in (REPO / "pyproject.toml").read_text(encoding="utf-8")  # provides -n


def test_the_readme_has_exactly_one_play_command_against_bots() -> None:
    (command,) = block("play-command")
    assert command.startswith("python3 -m venv .venv && ")
    assert "scat new" in command and "--bot" in command


def test_ci_runs_the_readme_test_command_itself() -> None:
    assert "<!-- test-command -->" in CI_RUN and "README.md" in CI_RUN
    assert 'bash -c "set -euo pipefail; $TEST_COMMAND"' in CI_RUN
    assert CI_RUN.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in CI_RUN
    # ... and then plays a game with a wheel installed outside the clone (issue #8).
    assert 'bash .ci/wheel_smoke "${SCAT_TEST_POSTGRES_URL:-}"' in CI_RUN


def test_the_readme_play_command_starts_a_game_on_the_default_database(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    (command,) = block("play-command")
    scat_part = command.split(" && ")[-1].split()
    assert scat_part[0] == ".venv/bin/scat"
    scat = shutil.which("scat", path=str(Path(sys.executable).parent)) or "scat"
    env = {k: v for k, v in os.environ.items() if k != "SCAT_DB_URL"}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    result = subprocess.run([scat, *scat_part[1:]], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    # unseeded: your turn, or a 31 dealt to you (R20: "You hold 31", about one deal in 150), or a game
    # the bots ended
    assert result.stdout.startswith("Created game ")
    assert any(told in result.stdout for told in ("Your turn.", "You hold 31: run", "won")), result.stdout
    assert (tmp_path / "data" / "scat" / "scat.db").exists()


#: The README is the newcomer's page, read in five minutes; the rest is in docs/.
README_MAX_LINES = 350
DOCS = sorted((REPO / "docs").glob("*.md"))


def test_the_readme_stays_short_and_links_each_doc() -> None:
    assert len(README.splitlines()) <= README_MAX_LINES
    assert DOCS, "docs/ holds no Markdown file"
    assert not [doc.name for doc in DOCS if f"](docs/{doc.name}" not in README]


def _without_code_blocks(text: str) -> str:
    """Markdown without its fenced code blocks (a `# comment` there is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


def _prose(text: str) -> str:
    """Markdown without its code, blocks and inline spans alike (a `[x](y)` there is no link)."""
    return re.sub(r"`[^`\n]*`", "", _without_code_blocks(text))


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    found: set[str] = set()
    text = _without_code_blocks(path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in found:
            n += 1
            anchor = f"{slug}-{n}"
        found.add(anchor)
    return found


@pytest.mark.parametrize("page", [REPO / "README.md", *DOCS], ids=lambda page: page.name)
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    links = re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8")))
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.is_file() or (anchor and path.suffix == ".md" and anchor not in anchors(path)):
            broken.append(link)
    assert not broken, f"{page.name}: {broken}"


def test_each_doc_opens_with_its_title_and_a_paragraph_saying_what_it_holds() -> None:
    for doc in DOCS:
        title, blank, intro = doc.read_text(encoding="utf-8").split("\n")[:3]
        assert title.startswith("# ") and not blank and intro and not intro.startswith(("#", "-", "|", "```")), doc.name
