"""The one escaping function of human output: no string from a history reaches a terminal raw.

Names, ids and seeds come from histories that may have been imported or edited. Printed as
they are, an ESC sequence would recolour, retitle or clear the terminal, a newline would
forge a `scat:` line, and a bidi override would reorder what is read. `terminal_safe`
shows every such character as a visible escape (`\\x1b`, `\\n`, `\\u202e`) instead; every
human line goes through it at the edge, where it is printed (rich passes ESC through).
"""

from __future__ import annotations

import re
from typing import Any

import typer

# C0 controls, DEL and C1 controls; bidi embeddings, overrides, isolates and marks; line and
# paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def terminal_safe(text: str) -> str:
    """`text` with every control, bidi and line-breaking character shown as a visible escape."""
    return _UNSAFE.sub(_visible, text)


def escape_strings(value: Any) -> Any:
    """A copy of a JSON-like value with `terminal_safe` applied to every string in it."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, dict):
        return {terminal_safe(str(key)): escape_strings(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [escape_strings(item) for item in value]
    return value


def say(text: str, err: bool = False) -> None:
    """Print one human line (on stderr with `err`), escaped."""
    typer.echo(terminal_safe(text), err=err)


#: What JSON leaves raw with ensure_ascii=False but a terminal may obey: C1 controls and bidi.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_safe(document_text: str) -> str:
    """A JSON text with C1 and bidi characters written as \\uXXXX (the same JSON value)."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document_text)
