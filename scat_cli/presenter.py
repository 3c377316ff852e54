"""What a player is shown after a command: the view (its JSON too), what the bots did, and the next moves.

The moves offered come from the domain (legal moves, refusals); nothing here decides a rule.
The JSON view of a game (`scat show --json` and the other commands: the contract's fields) is
built from a state the service already redacted for its viewer (scat_core.domain.views): the
public view shows no card but the discard top and the revealed showdowns; a player's own view
adds his hand once he has looked at it (R23). The CLI's words for each kind of move are one
table here (`words_of`: the command that makes it, why the hints offer it, the keys of `play`'s
screen): every kind of player command has its row (tests/cli/test_move_words.py), so a new
move cannot be left unsaid.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer

from scat_cli import render
from scat_cli.command_lines import as_words, command_line, scat_prefix
from scat_cli.render import print_json, say

if TYPE_CHECKING:
    from scat_core.domain.commands import LegalMove, PlayerCommand
    from scat_core.domain.state import GameState
    from scat_core.service.values import GameResult, Played, SeenEvent


@dataclass(frozen=True)
class MoveKey:
    """One key of `play`'s screen for a kind of move: its label ({top}: the top of the discard pile;
    {card}: the card), why the hints offer that move ({top}; None: they do not offer it), and the
    arguments it sends, or the place (1 to 4) in the hand of the card it sends."""

    key: str
    label: str
    why: str | None
    arguments: tuple[str, ...] = ()
    place: int | None = None

    def sends(self, move: LegalMove, hand: list[str]) -> bool:
        """Whether this key makes `move` (its arguments, or the card at its place in `hand`)."""
        if self.place is not None:
            return len(hand) >= self.place and move.arguments == (hand[self.place - 1],)
        return move.arguments == self.arguments


@dataclass(frozen=True)
class MoveWords:
    """How the CLI says one kind of move: its command (`scat COMMAND GAME --as NAME ARGUMENTS`,
    then `options`), its keys, the hints' title when it is offered ({line}: its command line) and,
    for a move of many arguments (a card), the word the hints put for them, in one line."""

    command: str
    keys: tuple[MoveKey, ...]
    options: tuple[str, ...] = ()
    title: str | None = None
    many: str | None = None

    def key_for(self, move: LegalMove, hand: list[str]) -> MoveKey | None:
        """The key that sends `move` (None: no key does, a card not in the hand shown)."""
        return next((key for key in self.keys if key.sends(move, hand)), None)


_PLACES = tuple(MoveKey(str(place), "discard {card}", "{many} one of {cards}", place=place) for place in (1, 2, 3, 4))

#: Each kind of player command, by its verb (its class's; the table loads no command: `--help` stays
#: light), in the CLI's words.
MOVE_WORDS: dict[str, MoveWords] = {
    "view-hand": MoveWords("show", (MoveKey("l", "look at your hand (R23)",
                                         "look at your hand (then you may no longer throw down)"),),
                            options=("--look",)),
    "throw-down": MoveWords("throw-down", (MoveKey("t", "throw down, unseen (R23)",
                                                "show every hand at once, unseen (R23)"),)),
    "declare": MoveWords("declare", (MoveKey("e", "declare 31 (R21)", "everyone else loses a life (R21)"),),
                             title="You hold 31: run `{line}`"),
    "draw": MoveWords("draw", (MoveKey("s", "draw from the stock", "take the top card of the stock", ("stock",)),
                                 MoveKey("d", "take {top} from the discard pile", "take {top} from the discard pile",
                                     ("discard",)))),
    "knock": MoveWords("knock", (MoveKey("k", "knock", "keep your hand: the others get one more turn each"),)),
    "discard": MoveWords("discard", _PLACES, many="CARD"),
    "resign": MoveWords("resign", (MoveKey("r", "resign (R27)", None),)),  # asks first on the screen; no hint
}


def words_of(kind: type[PlayerCommand]) -> MoveWords:
    """The CLI's words for moves of `kind`; a kind without them is a bug, said aloud."""
    try:
        return MOVE_WORDS[kind.verb]
    except KeyError:
        raise LookupError(f"{kind.__name__} has no row in scat_cli/presenter.py: the CLI cannot offer it") from None


def keyed(key: str) -> tuple[type[PlayerCommand], MoveKey] | None:
    """The kind of move `key` makes on `play`'s screen and its row, or None for no move's key."""
    from scat_core.domain.commands import PLAYER_COMMANDS

    return next(((PLAYER_COMMANDS[verb], row) for verb, words in MOVE_WORDS.items() for row in words.keys
                 if row.key == key), None)

def viewer_view(state: GameState, viewer: str | None) -> dict[str, Any]:
    """The JSON view for `viewer` (his hand only once he has looked at it, R23), or the public's."""
    return public_view(state) if viewer is None else player_view(state, viewer)


def next_steps(ctx: typer.Context, state: GameState, viewer: str, moves: list[LegalMove],
               read_only: bool = False) -> tuple[str, list[tuple[str, str]]]:
    """A title and (command, why) pairs: what `viewer` may do now, from the moves the service gave.

    Commands are quoted for the shell (names with spaces or quotes); `read_only`: an imported
    running game, which nobody can play here.
    """
    scat, game = scat_prefix(ctx), state.game_id
    seat = state.seat_of(viewer)
    if state.status == "finished":  # who won is said once, with the result
        return "", [
            (f"{scat} {command_line('export', game, '--format', 'text')}", "the whole game, hand by hand"),
            (f"{scat} {command_line('audit', game)}", "check the game from its events"),
        ]
    if read_only:
        return read_only_note(game), []
    if state.status == "pending":
        return _invited(ctx, state, viewer)
    if state.status == "cancelled":
        return "", []
    if seat is None:
        return "", []
    name = state.players[seat].name

    def act(command: str, *more: str) -> str:
        return f"{scat} {command_line(command, game, *as_words(ctx, name), *more)}"

    if state.players[seat].out:  # the table says "You are out of the game."
        return "", [(f"{scat} {command_line('show', game)}", "watch the others")]
    steps: list[tuple[str, str]] = []
    title = ""
    top = state.discard[-1] if state.discard else "?"
    by_kind: dict[type[PlayerCommand], list[LegalMove]] = {}
    for move in moves:
        by_kind.setdefault(move.kind, []).append(move)
    for kind, offered in by_kind.items():
        words = words_of(kind)
        if words.many:  # one line for them all: `discard CARD`, CARD one of ...
            cards = " ".join(" ".join(move.arguments) for move in offered)
            why = words.keys[0].why or ""
            steps.append((f"{act(words.command)} {words.many}", why.format(many=words.many, cards=cards)))
            continue
        for move in offered:
            key = words.key_for(move, [])
            if key is None or key.why is None:  # not hinted (a resignation)
                continue
            line = act(words.command, *move.arguments, *words.options)
            title = words.title.format(line=line) if words.title else title
            steps.append((line, key.why.format(top=top)))
    if not title:
        if state.turn == seat:
            title = "Your turn."
        elif state.turn is not None:
            title = f"Waiting for {state.name(state.turn)}."
    if state.protected and not state.signed_moves and steps and _token_unknown(ctx, game, name):
        title += " (Protected game: give your token with --token or SCAT_TOKEN.)"
    return title, steps


def _invited(ctx: typer.Context, state: GameState, viewer: str) -> tuple[str, list[tuple[str, str]]]:
    """What `viewer` may do in a game waiting for its players (R28): accept or decline his seat,
    withdraw the game he created, or take an open seat."""
    scat, game = scat_prefix(ctx), state.game_id
    seat = state.seat_of(viewer)
    name = state.players[seat].name if seat is not None else viewer
    if seat is None:
        if not state.open_seats:
            return "", []
        return "", [(f"{scat} {command_line('join', game)}", "take an open seat (joining is accepting)")]
    if name in state.awaiting:
        return "You are invited: accept your seat, or decline it.", [
            (f"{scat} {command_line('accept', game)}", "accept: the last acceptance deals the first hand"),
            (f"{scat} {command_line('decline', game)}", "decline: the game is cancelled"),
        ]
    withdraw = [(f"{scat} {command_line('decline', game)}", "withdraw the game: it is cancelled")] \
        if name == state.creator else []
    return "You have accepted: the others' answers deal the first hand.", withdraw


def _token_unknown(ctx: typer.Context, game: str, name: str) -> bool:
    """Whether this scat has not remembered `name`'s token for the game (then the hint says how to give it)."""
    from scat_cli.remembered import token_for

    return token_for(ctx, game, name, None) is None


def read_only_note(game: str) -> str:
    """What an imported running game is: shown, never played here."""
    return (f"Game {game} was imported without its secret seed: it is read-only here "
            "(show, log, replay, audit, export); play it on where it was created.")


def result_json(result: GameResult) -> dict[str, Any]:
    """A finished game's result as JSON."""
    from dataclasses import asdict

    return asdict(result)


def events_json(seen: list[SeenEvent], before: GameState) -> list[dict[str, Any]]:
    """Events (as the viewer may see them) as JSON: seq, type, recorded_at, data and a sentence."""
    from scat_cli.transcript import PublicTable, describe

    table = PublicTable.of(before)
    shown = []
    for event in seen:
        shown.append({"seq": event.seq, "type": event.type, "recorded_at": event.recorded_at,
                      "data": event.data, "text": describe(event.event, table)})
        table.apply(event.event)
    return shown


def messages_json(seen: list[SeenEvent]) -> list[dict[str, Any]]:
    """Messages said at the table as JSON: seq, player, text and recorded_at (UTC)."""
    return [{"seq": event.seq, "player": event.data["player"], "text": event.data["text"],
             "recorded_at": event.recorded_at} for event in seen if event.type == "MessageSaid"]


def messages_block(seen: list[SeenEvent], limit: int = 5) -> None:
    """The last `limit` messages said at the table, each `ann (12-05 09:46): text`, under a title."""
    from scat_cli.render import local_text

    said = messages_json(seen)[-limit:]
    if said:
        render.plain("Said at the table:")
        render.print_lines([f"{m['player']} ({local_text(m['recorded_at'], seconds=False)[5:]}): {m['text']}"
                            for m in said], "  ")


def finished_parts(result: GameResult | None) -> tuple[str, list[list[str]], list[str]] | None:
    """The headline, standings and hand lines of a finished game's result, for render.view_table."""
    from scat_cli.transcript import hand_lines, result_headline, standings_rows

    return None if result is None else (result_headline(result), standings_rows(result), hand_lines(result))


def news_block(ctx: typer.Context, game_id: str, seen: list[SeenEvent], before: GameState,
               title: str = "") -> None:
    """The moves told (redacted already), a long finished hand in one line; under `title` if any."""
    from scat_cli.transcript import news_lines

    lines = news_lines([(event.seq, event.event) for event in seen], before, game_id, scat_prefix(ctx))
    if lines and title:
        render.plain(title)
    render.print_lines(lines, "· ")


#: The events that each end a player's move: a turn's discard (R12) or knock (R14), a declared 31 (R20),
#: a throw down (R23).
BOTS_MOVES = ("CardDiscarded", "Knocked", "ThirtyOneDeclared", "ThrowDownCalled")


def bots_note(ctx: typer.Context, played: Played) -> str:
    """The one line telling that the bots have moves still to make after this command: the next
    one they could not save, or the bound of moves one command plays (an older game of bots may
    never end: its last human, or a local database's owner, may abandon it)."""
    show = f"`{scat_prefix(ctx)} show {played.game_id}`"
    if played.bots_interrupted:
        return (f"scat: note: {'the game was created and ' if played.before.version == 0 else ''}what is told "
                f"below was saved, but the bots' next moves could not be ({played.bots_interrupted}): "
                f"{show} or the next command lets them play on")
    moves = sum(1 for seen in played.events if seen.type in BOTS_MOVES)
    return (f"scat: note: the bots made {moves} moves and play on at the next command ({show}); a game that "
            f"never ends (rules version {played.state.rules_version}) can be given up: "
            f"`{scat_prefix(ctx)} abandon {played.game_id}`")


def report(ctx: typer.Context, played: Played, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    """Print what happened (as the service told it to its viewer), the new state and what to do next.

    `extra` adds fields to the JSON document; its "tokens" are printed before the hints.
    `played.result`: the game's result, when this command ended it.
    """
    if played.bots_interrupted or played.bots_owe:  # what was written stands; the bots' rest waits: say so
        say(bots_note(ctx, played), err=True)
    viewer, result = played.viewer, played.result
    view = viewer_view(played.state, viewer)
    title, steps = next_steps(ctx, played.state, viewer, played.moves) if viewer else ("", [])
    if as_json:
        moves = [command for command, _ in steps]
        finished = {"result": result_json(result)} if result is not None else {}
        print_json({**view, **(extra or {}), "events": events_json(played.events, played.before), "moves": moves,
                    **finished})
        return
    if result is None:  # a game this command ended: its result tells every hand, once
        news_block(ctx, played.game_id, played.events, played.before)
    render.view_table(view, finished_parts(result))
    if extra and extra.get("tokens"):
        render.tokens(extra["tokens"])
    if title or steps:
        render.hints(steps, title)


def public_view(state: GameState) -> dict[str, Any]:
    """What everybody may see: the contract's fields of `scat show --json`."""
    finished = state.status == "finished"
    pending = state.status == "pending"
    view: dict[str, Any] = {
        "game_id": state.game_id,
        "status": state.status if state.status in ("pending", "finished", "cancelled") else "active",
        "hand_number": state.hand_number,
        "dealer": state.name(state.dealer) if state.dealer >= 0 else None,
        "turn": state.name(state.turn),
        # The contract's three phases; `stage` also tells a replay stopped before the first
        # deal ("new") or inside the settling of a hand ("settling"), where nobody is to act.
        "phase": None if state.status in ("pending", "cancelled") else (
            state.phase if state.phase in ("discard", "finished") else "draw"),
        "stage": state.phase,
        "knocked_by": state.name(state.knocker),
        "discard_top": state.discard[-1] if state.discard else None,
        "stock_count": len(state.stock),
        # R17b (rules version 3): stock draws left before the hand is dead; None in older games.
        "draws_before_dead_hand": state.draws_before_dead_hand(),
        "set_aside_count": len(state.set_aside),  # a resigned player's cards, face down (R27)
        "kitty": state.kitty,
        "rules_version": state.rules_version,
        "winner": state.winner,
        "last_seq": state.version,
        "options": state.options.model_dump(),
        "players": [
            {
                "name": player.name,
                "seat": player.seat + 1,  # counted from 1, as the seats are shown
                "pennies": player.pennies,
                "on_dole": player.on_dole,
                "out": player.out,
                "resigned": player.resigned and not player.timed_out,  # by choice (R27)
                "out_reason": player.out_reason,  # null, "lives", "resigned" or "out_of_time" (R25, R27, R28)
                "is_bot": player.is_bot,
                "cards": len(state.hands[player.seat]) if state.hands else 0,
            }
            for player in state.players
        ],
        # #14 item 4: chance chosen by the creator, who could then know every hand (None: not recorded).
        "seed_chosen": state.seed_chosen,
        "first_deck_stacked": state.first_deck_stacked,
        "revealed": {name: list(cards) for name, cards in state.revealed.items()},
        "revealed_values": dict(state.revealed_values),
        # R28: who a game waiting for its players waits for, and its seats any account may take
        "awaiting": list(state.awaiting) if pending else [],
        "open_seats": state.open_seats if pending else 0,
        "rematch_of": state.rematch_of,
    }
    if finished:
        view["hands"] = {p.name: list(state.hands[p.seat]) for p in state.players if state.hands}
        view["seed"] = state.seed
    return view


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus the player's own hand and its value, once he has looked (R23)."""
    from scat_core.domain.views import kept_value

    view = public_view(state)
    seat = state.seat_of(name)
    if seat is None or not state.hands:
        return view
    view["you"] = state.players[seat].name
    if state.options.throw_down and state.in_hand:  # looking is a choice there (R23): said either way
        view["looked"] = not state.hand_unseen(seat)
    if state.hand_unseen(seat):
        view["hand"] = None  # face down until looked at (`--look`), which is recorded
        view["hand_hidden"] = True
        return view
    view["hand"] = list(state.hands[seat])
    view["hand_value"] = kept_value(state, seat) if state.hands[seat] else None
    view["taken_from_discard"] = state.taken_from_discard if state.turn == seat else None
    return view
