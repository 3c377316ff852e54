"""`scat rules`: the numbered rules ship with the program, one rule at a time if asked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.rules_command import rules_text

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec" / "rules.md"


#: Where the project's document cites a project file, the shipped rules name the command instead.
CITED_FILES = {"(cli.md)": "(`scat accept`)"}


def body(text: str) -> str:
    """The rules from the first one on (the introduction differs: it cites no project files)."""
    text = text[text.index("Scat is not German Skat"):]
    for cited, shipped in CITED_FILES.items():
        text = text.replace(cited, shipped)
    return text


def test_the_shipped_rules_are_the_projects_rules_document_every_rules_version() -> None:
    if SPEC.exists():  # beside the clone in CI and on developers' machines
        assert body(rules_text()) == body(SPEC.read_text(encoding="utf-8"))
    for number in [*range(1, 29), "17b"]:
        assert f"**R{number}" in rules_text()
    assert all(f"rules version {number}" in rules_text() for number in (1, 2, 3))


def test_the_shipped_rules_cite_no_file_the_user_does_not_have() -> None:
    assert not re.search(r"\.\./|\.md\b|seeds/", rules_text())


def test_scat_rules_prints_every_rule_as_plain_text_in_a_pipe() -> None:
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0
    assert "R1" in result.stdout and "R27" in result.stdout and "Invariants" in result.stdout
    assert "**" not in result.stdout and "`" not in result.stdout and "\x1b[" not in result.stdout
    assert not re.search(r"^#", result.stdout, re.MULTILINE)
    assert "\nShowdown\n--------\n" in result.stdout and "• R18 At a showdown" in result.stdout


def test_scat_rules_on_a_terminal_has_bold_headings_and_emphasis_not_markdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("scat_cli.rules_command.stdout_is_terminal", lambda: True)
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0
    assert "\x1b[1;4mShowdown\x1b[0m" in result.stdout  # bold, underlined
    assert "\x1b[1mR18\x1b[0m At a showdown" in result.stdout
    assert "**" not in result.stdout and "## " not in result.stdout


def test_scat_rules_r19_prints_that_rule_with_its_exceptions_only() -> None:
    result = CliRunner().invoke(app, ["rules", "r19"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("• R19 ") and any(line.startswith("  • R19b ") for line in lines)
    assert "R20" not in result.stdout and "R18" not in result.stdout


def test_scat_rules_r27_tells_what_resigning_does() -> None:
    result = CliRunner().invoke(app, ["rules", "R27"])
    assert result.exit_code == 0 and "resign" in result.stdout and "set aside face down" in result.stdout


def test_a_rule_number_can_omit_the_r_and_name_a_lettered_rule() -> None:
    result = CliRunner().invoke(app, ["rules", "15b"])
    assert result.exit_code == 0 and "no-first-round-knock" in result.stdout
    assert "R16" not in result.stdout


def test_an_unknown_rule_number_is_bad_input_with_one_line_on_stderr() -> None:
    result = CliRunner().invoke(app, ["rules", "R99"])
    assert result.exit_code == 2  # 4 is for no such game, player or file (cli.md)
    assert result.stderr.strip().count("\n") == 0 and "R99" in result.stderr


def test_rules_json_is_one_document_with_the_whole_text_or_the_one_rule() -> None:
    import json

    whole = CliRunner().invoke(app, ["rules", "--json"])
    assert whole.exit_code == 0 and json.loads(whole.stdout) == {"rules": rules_text().rstrip()}
    one = CliRunner().invoke(app, ["rules", "15b", "--json"])
    document = json.loads(one.stdout)
    assert document["rule"] == "R15b" and document["text"].startswith("- **R15b ")  # the Markdown source
    shown = CliRunner().invoke(app, ["rules", "R15b"]).stdout.rstrip("\n")
    markdown = "- **R15b Option `no-first-round-knock`**"
    assert shown == document["text"].replace(markdown, "• R15b Option no-first-round-knock")


def test_every_rule_the_rules_help_gives_as_an_example_is_found() -> None:
    import re

    help_text = " ".join(CliRunner().invoke(app, ["rules", "--help"], env={"COLUMNS": "200"}).stdout.split())
    examples = re.search(r"e\.g\. ([^.]+)\.", help_text)
    assert examples, help_text
    numbers = re.findall(r"\bR?\d+[a-z]?\b", examples.group(1))
    assert any(number[-1].isalpha() for number in numbers)  # a lettered rule among them
    for number in numbers:
        result = CliRunner().invoke(app, ["rules", number])
        assert result.exit_code == 0, (number, result.output)


def test_an_unknown_rule_is_refused_naming_the_range_of_the_rules_there_are() -> None:
    """The range is read off the rules shipped: R28 (move time) came after the message said R27."""
    result = CliRunner().invoke(app, ["rules", "R99"])
    assert result.exit_code == 2
    assert "rules are numbered R1 to R28" in result.output
    assert "**R28" in rules_text() and "**R29" not in rules_text()
    help_text = CliRunner().invoke(app, ["rules", "--help"], env={"COLUMNS": "200"}).output
    assert "numbered R1 to R28" in help_text
