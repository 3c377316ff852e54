"""The Typer plumbing (#9 point 6): public Typer API only, one private hook that fails loudly here.

A Typer upgrade must not be a port: scat_cli reaches Typer through `typer`, `typer.core`
and `typer.models` only, words its errors from its own declarations and the words typed,
and loads a command's module only when that command runs.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli import typer_glue
from scat_cli.app import app
from scat_cli.command_lines import COMMANDS
from scat_cli.typer_glue import given
from tests.support.cli import Scat, one_line_error, scat_in_a_fresh_interpreter

CLI = Path(typer_glue.__file__).parent
#: Typer's internals scat_cli once reached into; only `typer_converts_with` may name `_runtime_param`.
#: `typer.main.get_command` is public: Typer's documentation ("Using Click") gives it to reach the click object.
PRIVATE = re.compile(
    r"typer\._|typer\.main(?!\.get_command\()|from typer\.(main|_)|type_descriptor|__cause__|get_current_context")


def test_scat_cli_uses_no_private_typer_api() -> None:
    offenders = [f"{path.relative_to(CLI)}:{number}: {line.strip()}"
                 for path in sorted(CLI.rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                 if PRIVATE.search(line)]
    assert not offenders, "\n".join(offenders)
    hook = [path.name for path in CLI.rglob("*.py") if "_runtime_param" in path.read_text(encoding="utf-8")]
    assert hook == ["typer_glue.py"], hook


def _typer_converts_with_pydantic() -> bool:
    """Whether this Typer converts parameter values through pydantic (Typer 0.29 on)."""
    return importlib.util.find_spec("typer._adapters") is not None


@pytest.mark.parametrize("command", [*COMMANDS, "db upgrade"])
def test_the_private_typer_hook_takes_on_every_plain_parameter(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The one private hook (start-up speed): should Typer drop the slot it fills, this fails,
    # naming the function to port (scat still works then, only slower).
    if not _typer_converts_with_pydantic():
        pytest.skip("this Typer converts without pydantic: nothing to skip")
    taken: list[tuple[str, bool]] = []
    original = typer_glue.typer_converts_with

    def spy(param: Any, converter: typer_glue.PlainValue) -> bool:
        taken.append((param.name, original(param, converter)))
        return taken[-1][1]

    monkeypatch.setattr(typer_glue, "typer_converts_with", spy)
    result = CliRunner().invoke(app, [*command.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert taken and all(ok for _, ok in taken), (
        f"Typer changed: scat_cli.typer_glue.typer_converts_with no longer takes ({taken}); port it or drop it")
    assert "help" in dict(taken)


def test_a_hooked_parameter_converts_as_typer_would() -> None:
    from enum import StrEnum

    class Colour(StrEnum):
        red = "red"

    class Param:
        multiple, nargs = False, 1

    plain = typer_glue.PlainValue(Colour, case_sensitive=False)
    assert plain.coerce("RED", Param(), None) is Colour.red
    assert plain.coerce(None, Param(), None) is None
    Param.multiple = True
    assert typer_glue.PlainValue(str, True).coerce(("a", b"b"), Param(), None) == ["a", "b"]
    assert typer_glue.PlainValue(str, True).coerce(None, Param(), None) == ()


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        ("--player x --bot b1 -p y -bb2 -qp z --bot=b3 --player=w",
         [("players", "x"), ("bots", "b1"), ("players", "y"), ("bots", "b2"), ("quiet", None), ("players", "z"),
          ("bots", "b3"), ("players", "w")]),
        ("--player -b --bot=--player", [("players", "-b"), ("bots", "--player")]),  # a value like an option
        ("--seed 3 --nope x --lives", [("seed", "3"), (None, "--nope"), (None, "x"), ("lives", None)]),
        ("--seed=3 -- --lives 4", [("seed", "3"), (None, "--lives"), (None, "4")]),
    ],
)
def test_the_words_typed_are_read_as_click_reads_them(args: str, wanted: list[tuple[str | None, str | None]]) -> None:
    from scat_cli.play import new

    assert given(_params_of(new), args.split()) == wanted


def test_arguments_are_matched_in_order_and_after_double_dash() -> None:
    from scat_cli.play import draw

    found = given(_params_of(draw), ["G1", "--as", "you", "--", "-stock"])
    assert found == [("game", "G1"), ("player", "you"), ("source", "-stock")]


def _params_of(function: Any) -> list[Any]:
    """The parameters of a command function, as its command class sees them."""
    import typer
    from typer.core import TyperCommand

    seen: list[Any] = []

    class Spy(TyperCommand):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            seen.extend(self.get_params(ctx))
            raise typer.Exit(0)

    single = typer.Typer()
    single.command(cls=Spy)(function)
    CliRunner().invoke(single, [])
    return seen


def test_seats_follow_every_way_of_writing_the_options(scat_json: Scat) -> None:
    # R6: players sit in the order given, --player and --bot interleaved, however written.
    game = scat_json("new", "--seed", "5", "--player", "x", "--bot", "b1", "-p", "y", "-bb2", "-p", "z", "--bot=b3",
                     "--player=w")
    assert [(p["name"], p["is_bot"]) for p in game["players"]] == [
        ("x", False), ("b1", True), ("y", False), ("b2", True), ("z", False), ("b3", True), ("w", False)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("wait", "GAME", "--as", "you", "--timeout", "soon"), "--timeout needs a number, not 'soon'"),
        (("wait", "GAME", "--as", "you", "--timeout", "-1"), "--timeout must be at least 0, not -1"),
        (("new", "--player", "a", "--lives", "2.5"), "--lives needs a whole number, not '2.5'"),
        (("export", "GAME", "--format", "JSON"), "'JSON' is not an export format: write jsonl, json or text"),
        (("draw", "GAME", "--as", "you", "--", "-x"), "'-x' is not a draw source: write stock or discard"),
    ],
)
def test_bad_values_are_worded_from_the_declaration_and_the_word_typed(scat: Scat, scat_json: Scat,
                                                                      args: tuple[str, ...], message: str) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann")["game_id"]
    result = scat(*(game if arg == "GAME" else arg for arg in args))
    assert result.exit_code == 2
    assert one_line_error(result).startswith(f"scat: error: {message} (see `scat ")


@pytest.mark.parametrize("group", ["db", "key"])
def test_a_group_without_its_command_prints_its_help_on_stderr(group: str) -> None:
    result = CliRunner().invoke(app, [group])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Usage: scat {group} [OPTIONS] COMMAND [ARGS]...") and "Commands:" in result.stderr
    assert "scat: error" not in result.stderr


def test_a_command_imports_only_its_own_module(sqlite_url: str) -> None:
    result = scat_in_a_fresh_interpreter(
        ["--db", sqlite_url, "rules", "R1"],
        "loaded = sorted(m for m in ('scat_cli.play', 'scat_cli.history', 'scat_cli.stats_command', "
        "'scat_cli.waiting', 'scat_cli.serve_command') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        "assert 'scat_cli.rules_command' in sys.modules\n")
    assert result.returncode == 0, result.stderr


def test_a_group_without_a_command_prints_its_help_the_same_way() -> None:
    bare, db = CliRunner().invoke(app, []), CliRunner().invoke(app, ["db"])
    assert bare.exit_code == db.exit_code == 2
    assert "Usage: scat [OPTIONS] COMMAND" in bare.stderr and "Usage: scat db [OPTIONS] COMMAND" in db.stderr
    assert bare.stdout == db.stdout == ""


def test_the_help_lists_each_command_by_the_first_sentence_of_its_own_help() -> None:
    # `scat --help` lists them from SUMMARIES, importing none of their modules: each must say
    # what the command's own help (its docstring; a group's help) says first.
    import inspect
    from importlib import import_module

    import typer

    from scat_cli.command_lines import GROUPS, SUMMARIES
    from scat_cli.typer_glue import ScatGroup

    root = typer.main.get_command(app)
    assert isinstance(root, ScatGroup)
    helps = {name: inspect.getdoc(getattr(import_module(module), function)) or ""
             for name, (module, function) in COMMANDS.items()}
    helps |= {name: root._group(name).help or "" for name in GROUPS}
    first = {name: " ".join(text.split("\n\n")[0].split()) for name, text in helps.items()}
    assert SUMMARIES == first


def test_the_help_imports_no_commands_module() -> None:
    result = scat_in_a_fresh_interpreter(
        ["--help"],
        "from scat_cli.command_lines import COMMANDS, GROUPS\n"
        "loaded = sorted({module for module, _ in [*COMMANDS.values(), *GROUPS.values()]} & set(sys.modules))\n"
        "assert not loaded, loaded\n")
    assert result.returncode == 0, result.stderr
    assert "new         Create a game and deal; bots play until a human must." in result.stdout
