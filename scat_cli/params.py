"""Command-line parameters as scat declares them and as the user typed them, through public API only.

`declared` reads a command's own signature (the annotations and the `typer.Option` /
`typer.Argument` given there); `given` reads the words typed, each with the parameter it is
for, in order. Usage errors are worded from these two (`usage_message`), never from Typer's
or pydantic's internals: a Typer upgrade changes no message.

The one exception, for start-up speed only: `typer_converts_with` (Typer's private slot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typer.models import ParameterInfo

#: What an enum option or argument is, for "'top' is not a draw source: write stock or discard".
CHOICE_NOUNS = {"Source": "draw source", "Status": "game status", "Format": "export format"}


_DECLARED: dict[Any, dict[str, Declared]] = {}


@dataclass(frozen=True)
class Declared:
    """A parameter as its command declares it: the type (None and Annotated taken off) and its typer info."""

    kind: Any
    info: ParameterInfo | None


def declared(callback: Any) -> dict[str, Declared]:
    """The parameters of a command's function (a Typer callback), by name."""
    import inspect
    from typing import get_type_hints

    from typer.models import ParameterInfo

    if callback is None:
        return {}
    function = inspect.unwrap(callback)
    if function in _DECLARED:
        return _DECLARED[function]
    hints = get_type_hints(function, include_extras=True)
    found: dict[str, Declared] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        kind, extras = _strip(hints.get(name, Any))
        infos = [extra for extra in (*extras, parameter.default) if isinstance(extra, ParameterInfo)]
        found[name] = Declared(kind, infos[0] if infos else None)
    _DECLARED[function] = found
    return found


def _strip(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """An annotation without Annotated (its extras returned) and without None (`X | None` is X)."""
    from types import NoneType, UnionType
    from typing import Annotated, Union, get_args, get_origin

    extras: tuple[Any, ...] = ()
    if get_origin(annotation) is Annotated:
        annotation, *more = get_args(annotation)
        extras = tuple(more)
    if get_origin(annotation) in (Union, UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not NoneType]
        annotation = rest[0] if len(rest) == 1 else annotation
    return annotation, extras


def given(params: Sequence[Any], args: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """Each parameter the words `args` give, in the order typed: (name, the word as typed; None for a flag).

    Read as click reads a command line (`--opt VALUE`, `--opt=VALUE`, `-o VALUE`, `-oVALUE`,
    short flags joined `-qp NAME`, arguments between options, everything after `--` an
    argument) from the parameters' public fields. A word no parameter takes is named None.
    """
    options = {opt: param for param in params if param.param_type_name == "option"
               for opt in (*param.opts, *param.secondary_opts)}
    takes = {id(param): not (param.is_flag or param.count) for param in options.values()}
    arguments = iter([param for param in params if param.param_type_name == "argument"])
    argument = next(arguments, None)
    found: list[tuple[str | None, str | None]] = []
    words, only_arguments = list(args), False
    while words:
        word = words.pop(0)
        if word == "--" and not only_arguments:
            only_arguments = True
        elif only_arguments or word[:1] != "-" or len(word) == 1:
            found.append((argument.name if argument is not None else None, word))
            if argument is not None and argument.nargs != -1:
                argument = next(arguments, None)
        elif word.startswith("--"):
            name, equals, value = word.partition("=")
            param = options.get(name)
            if param is None:
                found.append((None, word))
            elif takes[id(param)]:
                found.append((param.name, value if equals else (words.pop(0) if words else None)))
            else:
                found.append((param.name, None))
        else:
            for at, letter in enumerate(word[1:], start=2):
                param = options.get(f"-{letter}")
                if param is None:
                    found.append((None, word))
                    break
                if takes[id(param)]:
                    rest = word[at:]
                    found.append((param.name, rest if rest else (words.pop(0) if words else None)))
                    break
                found.append((param.name, None))
    return found


def usage_message(error: Any, typed: Sequence[tuple[str | None, str | None]] = ()) -> str:
    """A usage error as one plain line: a bad or missing value worded from the parameter's declaration."""
    from typer import BadParameter

    better = None
    if isinstance(error, BadParameter) and error.param is not None and error.ctx is not None:
        better = _bad_value(error.param, declared(error.ctx.command.callback).get(error.param.name), typed)
    return better or " ".join(error.format_message().split()).rstrip(".")


def _bad_value(param: Any, declaration: Declared | None, typed: Sequence[tuple[str | None, str | None]]) -> str | None:
    """What is wrong with the value typed for `param`, or None to keep Typer's words."""
    if declaration is None:
        return None
    values = [value for name, value in typed if name == param.name]
    value = values[-1] if values else None
    choices, noun = choices_of(declaration.kind)
    if choices:
        if value is None:
            return f"missing the {noun}: write {_either(choices)}"
        article = "an" if noun[:1] in "aeiou" else "a"
        return f"{value!r} is not {article} {noun}: write {_either(choices)}"
    if declaration.kind not in (int, float) or value is None:
        return None
    opts = [opt for opt in param.opts if opt.startswith("-")]
    name = opts[0] if opts else str(param.metavar or param.name.upper())
    try:
        number = declaration.kind(value.strip())
    except ValueError:
        return f"{name} needs a {'whole number' if declaration.kind is int else 'number'}, not {value!r}"
    info = declaration.info
    low, high = (info.min, info.max) if info is not None else (None, None)
    if low is not None and high is not None and not low <= number <= high:
        return f"{name} must be from {low} to {high}, not {value.strip()}"
    if low is not None and number < low:
        return f"{name} must be at least {low}, not {value.strip()}"
    if high is not None and number > high:
        return f"{name} must be at most {high}, not {value.strip()}"
    return None


def choices_of(kind: Any) -> tuple[list[str], str]:
    """The values of an enum type and what they are called, or ([], "")."""
    from enum import Enum

    if isinstance(kind, type) and issubclass(kind, Enum):
        return [str(member.value) for member in kind], CHOICE_NOUNS.get(kind.__name__, "choice")
    return [], ""


def _either(choices: list[str]) -> str:
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


class PlainValue:
    """Typer's conversion of a str, bool, list[str] or enum parameter, done without pydantic.

    Typer builds a pydantic TypeAdapter for each parameter it converts: importing pydantic
    and building those is a good share of `scat COMMAND --help` (the root's --db) and of a
    command's start-up. These values need none: the result is the one Typer gives.
    """

    def __init__(self, kind: Any, case_sensitive: bool) -> None:
        self.kind, self.case_sensitive = kind, case_sensitive

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """The parameter's value as Typer would convert it; BadParameter for a word none of the choices."""
        from typer import BadParameter

        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if not many:
            return self._one(value, param, ctx)
        if isinstance(value, str):
            raise BadParameter("Value must be an iterable.", ctx=ctx, param=param)
        return [self._one(item, param, ctx) for item in value]

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        import sys

        from typer import BadParameter

        if self.kind is bool and isinstance(value, bool):
            return value
        if isinstance(value, bytes):
            value = value.decode(sys.getfilesystemencoding(), "replace")
        if self.kind is str:
            return str(value)
        if isinstance(value, self.kind):  # an enum member already (a default)
            return value
        wanted = str(value) if self.case_sensitive else str(value).casefold()
        for member in self.kind:
            if wanted == (str(member.value) if self.case_sensitive else str(member.value).casefold()):
                return member
        raise BadParameter(f"{value!r} is not one of the choices", ctx=ctx, param=param)


def plain_value(declaration: Declared) -> PlainValue | None:
    """The pydantic-free conversion of a parameter so declared, or None when Typer must convert it."""
    from enum import Enum
    from typing import get_args, get_origin

    info, kind = declaration.info, declaration.kind
    if kind is bool and info is None:  # --help
        return PlainValue(bool, True)
    if info is None or info.parser is not None or info.callback is not None:
        return None
    if get_origin(kind) is list and get_args(kind) == (str,):
        kind = str
    if kind in (str, bool) or (isinstance(kind, type) and issubclass(kind, Enum)):
        return PlainValue(kind, info.case_sensitive)
    return None


def convert_plainly(command: Any, ctx: Any) -> None:
    """Have Typer convert the plain parameters (str, bool, list[str], enum; --help) of a command without pydantic."""
    found = declared(command.callback)
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        flag = param is help_option or _completion_flag(param)
        declaration = Declared(bool, None) if flag else found.get(param.name)
        converter = plain_value(declaration) if declaration is not None else None
        if converter is not None:
            typer_converts_with(param, converter)


def _completion_flag(param: Any) -> bool:
    """Whether `param` is Typer's --install-completion or --show-completion as a flag (the shell found by itself)."""
    return param.name in ("install_completion", "show_completion") and bool(getattr(param, "is_flag", False))


def typer_converts_with(param: Any, converter: PlainValue) -> bool:
    """THE ONE PRIVATE TYPER HOOK: Typer converts `param`'s value with `converter` instead of pydantic.

    Typer (0.26 to 0.29 at least) converts through a per-parameter object it builds on first
    use (`_runtime_param`, whose `coerce(value, param=, ctx=)` returns the value); setting it
    first is all this does. Typer has no public way to convert a parameter without pydantic.
    When Typer no longer has that slot, nothing is set (False) and Typer converts as usual:
    slower, same result. tests/cli/test_typer_glue.py fails loudly then.
    """
    if "_runtime_param" not in vars(param) or param._runtime_param not in (None, converter):
        return False
    param._runtime_param = converter
    return True
