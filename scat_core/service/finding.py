"""Finding a game by its id or any unique start of it."""

from __future__ import annotations

from scat_core.domain.errors import BadInput, Hint, NotFound
from scat_core.records.errors import CorruptHistory
from scat_core.service.ports import Store

MAX_LISTED = 8


class Finding:
    """Resolving game ids over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given`.

        NotFound when no game matches; BadInput (a usage error) naming the matches when
        several do. A whole id is found with one lookup; only a shorter one lists ids.
        """
        wanted = given.strip()
        if not wanted:
            raise BadInput("a game id cannot be empty", hint=Hint.LIST_GAMES)
        with self.store.read() as tx:
            try:
                if tx.head(wanted) is not None or tx.get_game(wanted) is not None:
                    return wanted
            except CorruptHistory:  # damaged, but there: the command (or the audit) says how (#14 item 7)
                return wanted
            known = {*tx.game_ids(), *tx.logged_game_ids()}
        folded = wanted.casefold()
        matches = sorted(game_id for game_id in known if game_id.casefold().startswith(folded))
        if not matches:
            raise NotFound(f"no game {given!r}", hint=Hint.LIST_GAMES)
        if len(matches) > 1:
            listed = ", ".join(matches[:MAX_LISTED]) + (", …" if len(matches) > MAX_LISTED else "")
            raise BadInput(f"{given!r} is the start of {len(matches)} game ids ({listed}): give more of it")
        return matches[0]
