"""What this user's scat remembers of each game between commands, in his config directory (readable
by him only), keyed by where the game lives (the server URL, or the database URL): the tokens of
his protected games (`tokens.json`: from `scat new`, or given once with --token, so `--as NAME` is
enough), the newest position of each game he was shown (`heads.json`), so that a history
rolled back behind his back is noticed, and what `wait --any --new` told each player
(`told.json`). Each is a small JSON file written atomically, mode 0600 (private_files.py).

Whoever holds the database's rights can put a game back to an older position: cut the tail of its
log and put back the head signature it had then. That older head is validly signed, so nothing on
the server alone can prove the game was further along; its players can. Each scat keeps, per game,
the highest seq it was shown and that event's position tag where the answer carried one (a signed
move's `Played.position`), written at most once per command and only when a game was seen further
along. A later answer that shows the game at a lower seq, or another tag at the same seq, is a
damaged history: the command fails with HistoryRolledBack (exit 1), and `scat audit` fails the
game; once a game is over, `scat audit GAME` also recomputes the tag kept from the game's export
and fails a history forked after it, however long. Each user sees only the positions he was shown.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer

from scat_cli.private_files import write_private_json
from scat_cli.settings import state

if TYPE_CHECKING:
    from scat_core.domain.audit_report import AuditReport
    from scat_core.service.boundary import Games
    from scat_core.service.values import Export, History, Played, Progress, SeenEvent, Shown, Told, Waited, WaitedAny


def _config_file(name: str) -> Path:
    """The file `name` in this user's scat config directory."""
    from platformdirs import user_config_dir  # start-up time: loaded by the commands that remember only

    return Path(user_config_dir("scat")) / name


def tokens_path() -> Path:
    return _config_file("tokens.json")


def where(ctx: typer.Context) -> str:
    """Where the games live: the server URL, or the database URL."""
    given = state(ctx)
    if given.server:
        return given.server
    from scat_core.store.sql.database import resolve_url

    return resolve_url(given.db_url)


def _key(ctx: typer.Context, game: str, player: str) -> str:
    return "\t".join((where(ctx), game, player.casefold()))


def _load_tokens(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def token_for(ctx: typer.Context, game: str, player: str | None, given: str | None) -> str | None:
    """The token to use: the one given, else the one remembered for this game and player."""
    if given or player is None:
        return given or None
    return _load_tokens(tokens_path()).get(_key(ctx, game, player))


def tokens_of(ctx: typer.Context, player: str) -> dict[str, str]:
    """Every token remembered for `player` here (this server or database): game -> token."""
    here, wanted = where(ctx), player.casefold()
    tokens = {}
    for key, token in _load_tokens(tokens_path()).items():
        parts = key.split("\t")
        if len(parts) == 3 and parts[0] == here and parts[2] == wanted:
            tokens[parts[1]] = token
    return tokens


def remember(ctx: typer.Context, game: str, tokens: dict[str, str]) -> None:
    """Keep `tokens` (player -> token) of `game`; the file is created readable by its user only."""
    if not tokens:
        return
    path = tokens_path()
    known = _load_tokens(path)
    changed = {_key(ctx, game, player): token for player, token in tokens.items()}
    if all(known.get(key) == token for key, token in changed.items()):
        return
    known.update(changed)
    try:
        write_private_json(path, known)
    except OSError as error:  # the command itself succeeded: say so, and go on
        typer.echo(f"scat: note: could not remember the token in {path}: {error.strerror}", err=True)


#: The most games kept (the ones seen longest ago are forgotten first): a few hundred KiB.
MOST_GAMES = 5000


def heads_path() -> Path:
    """Where the positions seen are kept: `heads.json` in the user's config directory, beside the tokens."""
    return _config_file("heads.json")


def _load_heads(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(key): value for key, value in data.items()
            if isinstance(value, dict) and isinstance(value.get("seq"), int)}


def _merged(kept: dict[str, Any] | None, seen: dict[str, Any]) -> dict[str, Any]:
    """Two records of one game's positions as one: the higher seq, and the tag of the higher tagged seq."""
    if kept is None:
        return seen
    tagged = seen if (seen.get("tag_seq") or 0) >= (kept.get("tag_seq") or 0) and seen.get("tag") else kept
    return {"seq": max(kept["seq"], seen["seq"]), "tag_seq": tagged.get("tag_seq"), "tag": tagged.get("tag"),
            "at": max(kept.get("at", 0), seen.get("at", 0))}


class SeenHeads:
    """The positions this user has seen of the games at `where` (a server or a database URL): per
    game the highest seq (`seq`), and the highest seq seen with its position tag (`tag_seq`, `tag`)."""

    def __init__(self, where: str, place: str, path: Path | None = None) -> None:
        self.where, self.place = where, place  # place: who shows the game, "the server" or "the database"
        self.path = path if path is not None else heads_path()
        self._known: dict[str, dict[str, Any]] | None = None
        self._newer: dict[str, dict[str, Any]] = {}  # what this command saw further along, to be kept

    def _key(self, game_id: str) -> str:
        return f"{self.where}\t{game_id}"

    def kept(self, game_id: str) -> dict[str, Any] | None:
        """What was seen here of the game (`seq`, `tag_seq`, `tag`), if anything."""
        if self._known is None:
            self._known = _load_heads(self.path)
        key = self._key(game_id)
        return self._newer.get(key) or self._known.get(key)

    def problem(self, game_id: str, seq: int, tag: str | None = None) -> str | None:
        """Why the game shown at (`seq`, `tag`) is older than (or other than) what was seen here; None if not."""
        kept = self.kept(game_id)
        if kept is None:
            return None
        if seq < kept["seq"]:
            return (f"{self.place} shows it at event {seq}, but event {kept['seq']} was seen here before: its "
                    "history was cut back to an older head (rolled back)")
        if tag and kept.get("tag") and seq == kept.get("tag_seq") and tag != kept["tag"]:
            return (f"{self.place} shows another event {seq} than the one seen here before: its history was "
                    "rewritten")
        return None

    def fork(self, game_id: str, records: list[dict[str, Any]]) -> str | None:
        """Why a finished game's whole history (its export's `records`, the seed revealed in the last)
        is not the one seen here: its event at the tagged seq kept has another position tag (None:
        it is the same, or nothing tells)."""
        from scat_core.records.signing import position_tag

        kept = self.kept(game_id)
        won = records[-1].get("data", {}) if records else {}
        if kept is None or not kept.get("tag") or not isinstance(won, dict) or "seed" not in won:
            return None
        at = next((record for record in records if record.get("seq") == kept.get("tag_seq")), None)
        if at is None:
            return None  # fewer events: `problem` says so
        if position_tag(str(won["seed"]), str(won.get("seed_salt", "")), str(at.get("hash", ""))) == kept["tag"]:
            return None
        return (f"{self.place}'s event {kept['tag_seq']} is not the one seen here before: its history was "
                "rewritten from there on (a fork)")

    def saw(self, game_id: str, seq: int, tag: str | None = None, recorded: bool = False, check: bool = True) -> None:
        """The game was shown at (`seq`, `tag`): HistoryRolledBack when that is older than (or other
        than) a position seen here before (`recorded`: the command's move was recorded all the same;
        `check=False`: not refused, only kept if newer); else it is kept if it is newer."""
        wrong = self.problem(game_id, seq, tag)
        if wrong is not None and not check:
            return
        if wrong is not None:
            from scat_cli.errors import HistoryRolledBack

            raise HistoryRolledBack(game_id, wrong, recorded=recorded)
        kept = self.kept(game_id)
        seen = {"seq": seq, "tag_seq": seq if tag else None, "tag": tag or None, "at": int(time.time())}
        merged = _merged(kept, seen)
        if kept is None or merged["seq"] != kept["seq"] or merged["tag_seq"] != kept.get("tag_seq"):
            self._newer[self._key(game_id)] = merged

    def save(self) -> None:
        """Keep what this command saw further along (merged with what other commands kept meanwhile:
        the higher position wins); a file that cannot be written is a note, the command succeeded."""
        if not self._newer:
            return
        known = _load_heads(self.path)
        for key, seen in self._newer.items():
            known[key] = _merged(known.get(key), seen)
        if len(known) > MOST_GAMES:
            newest = sorted(known.items(), key=lambda item: item[1].get("at", 0), reverse=True)[:MOST_GAMES]
            known = dict(newest)
        self._newer = {}
        try:
            write_private_json(self.path, known)
        except OSError as error:
            import typer

            typer.echo(f"scat: note: could not remember the games' positions in {self.path}: {error.strerror}",
                       err=True)


class Witnessed:
    """`games` (the game service or its `--server` client) with every answer that shows a game's
    position checked against, and kept in, `seen`. Everything else is `games`' own."""

    def __init__(self, games: Games, seen: SeenHeads) -> None:
        self._games, self._seen = games, seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._games, name)

    def _played(self, played: Played, recorded: bool) -> Played:
        position = played.position
        self._seen.saw(played.game_id, position.seq if position is not None else played.state.version,
                       position.tag if position is not None else None, recorded=recorded)
        return played

    def _shown(self, shown: Shown) -> Shown:
        self._seen.saw(shown.game_id, shown.state.version)
        return shown

    def new_game(self, *args: Any, **kwargs: Any) -> Played:
        """`scat new`: the new game's position is the first kept."""
        return self._played(self._games.new_game(*args, **kwargs), recorded=True)

    def move(self, *args: Any, **kwargs: Any) -> Played:
        """A move; the history it was recorded on checked (checking first would cost a request per move)."""
        return self._played(self._games.move(*args, **kwargs), recorded=True)

    def claim(self, *args: Any, **kwargs: Any) -> Played:
        """`scat claim`, checked as a move is."""
        return self._played(self._games.claim(*args, **kwargs), recorded=True)

    def rematch(self, *args: Any, **kwargs: Any) -> Played:
        """`scat rematch`: the new game's position is kept."""
        return self._played(self._games.rematch(*args, **kwargs), recorded=True)

    def accept(self, *args: Any, **kwargs: Any) -> Played:
        """`scat accept`, checked as a move is."""
        return self._played(self._games.accept(*args, **kwargs), recorded=True)

    def decline(self, *args: Any, **kwargs: Any) -> Played:
        """`scat decline`, checked as a move is."""
        return self._played(self._games.decline(*args, **kwargs), recorded=True)

    def join(self, *args: Any, **kwargs: Any) -> Played:
        """`scat join`, checked as a move is."""
        return self._played(self._games.join(*args, **kwargs), recorded=True)

    def say(self, *args: Any, **kwargs: Any) -> Played:
        """`scat say`, checked as a move is."""
        return self._played(self._games.say(*args, **kwargs), recorded=True)

    def abandon(self, *args: Any, **kwargs: Any) -> Played:
        """`scat abandon`, checked as a move is."""
        return self._played(self._games.abandon(*args, **kwargs), recorded=True)

    def show(self, *args: Any, **kwargs: Any) -> Shown:
        """`scat show`, checked."""
        return self._shown(self._games.show(*args, **kwargs))

    def log(self, *args: Any, **kwargs: Any) -> History:
        """`scat log`: kept, not refused (the log shows a damaged history as it is, to look into it;
        `scat audit` tells what is wrong with it)."""
        history = self._games.log(*args, **kwargs)
        self._seen.saw(history.game_id, history.state.version, check=False)
        return history

    def wait_for_turn(self, *args: Any, **kwargs: Any) -> Waited:
        """`scat wait`, what it shows checked."""
        waited = self._games.wait_for_turn(*args, **kwargs)
        self._shown(waited.shown)
        return waited

    def wait_for_any_turn(self, *args: Any, **kwargs: Any) -> WaitedAny:
        """`scat wait --any`, the game it shows checked."""
        waited = self._games.wait_for_any_turn(*args, **kwargs)
        if waited.shown is not None:
            self._shown(waited.shown)
        return waited

    def watch(self, game_id: str, viewer: str | None = None, token: str | None = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """`scat watch`: the game as it stands checked first (a look at it that records no look, R23), then
        each event told kept as seen; one that goes back (a history cut back while watched) is refused."""
        self._shown(self._games.show(game_id, viewer, token, look=False))
        return self._watched(game_id, self._games.watch(game_id, viewer, token, look))

    def _watched(self, game_id: str, events: Iterator[SeenEvent]) -> Iterator[SeenEvent]:
        told = 0
        for seen in events:
            if seen.seq <= told:
                from scat_cli.errors import HistoryRolledBack

                raise HistoryRolledBack(game_id, f"{self._seen.place} told event {seen.seq} again after event {told}: "
                                                 "its history was cut back to an older head (rolled back)")
            told = seen.seq
            self._seen.saw(game_id, seen.seq, check=False)
            yield seen

    def export(self, *args: Any, **kwargs: Any) -> Export:
        """`scat export GAME`: a history older than one seen here is refused as damaged."""
        exported = self._games.export(*args, **kwargs)
        last = exported.records[-1].get("seq") if exported.records else None
        if isinstance(last, int):
            self._seen.saw(exported.game_id, last)
        return exported

    def _audited(self, report: AuditReport) -> AuditReport:
        wrong = self._seen.problem(report.game_id, report.events)
        if wrong is None:
            if report.ok:
                self._seen.saw(report.game_id, report.events)
            return report
        return dataclasses.replace(report, ok=False, problems=[*report.problems, wrong])

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """`scat audit GAME`, failed also for a history older than one seen here; and, once the game is
        over, for one whose event at a position seen here with its tag is another (a fork, however long)."""
        report = self._audited(self._games.audit(game_id, strict))
        kept = self._seen.kept(game_id)
        if not report.ok or not report.seed_verified or kept is None or not kept.get("tag"):
            return report
        wrong = self._seen.fork(game_id, self._games.export(game_id).records)  # one more read, for this game only
        return report if wrong is None else dataclasses.replace(report, ok=False, problems=[*report.problems, wrong])

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """`scat audit --all`, each game failed also for a history older than one seen here."""
        return (self._audited(report) for report in self._games.audit_all(strict, progress))


def witnessed(games: Games, where: str, server: bool) -> Games:
    """`games`, its answers checked against the positions this user saw of its games (see the module)."""
    return cast("Games", Witnessed(games, SeenHeads(where, "the server" if server else "the database")))


def save_seen(games: object) -> None:
    """Keep what a `witnessed` service saw (nothing for another)."""
    if isinstance(games, Witnessed):
        games._seen.save()  # noqa: SLF001 (this module's own)


# What `scat wait --any --new` has told each player (`told.json`, keyed by where the games live
# and the player), so that a loop of waits tells each thing once.
def _told_path() -> Path:
    return _config_file("told.json")


def _told_key(ctx: typer.Context, player: str) -> str:
    return f"{where(ctx)}\t{player.casefold()}"


def _load_told(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def told_before(ctx: typer.Context, player: str) -> Told | None:
    """What earlier waits told `player` here, or None (nothing yet, or the file is unreadable)."""
    from pydantic import ValidationError

    from scat_core.service.values import Told

    kept = _load_told(_told_path()).get(_told_key(ctx, player))
    try:
        return None if kept is None else Told.model_validate(kept)
    except ValidationError:
        return None


def keep_told(ctx: typer.Context, player: str, told: Told) -> None:
    """Keep `told` for `player` here (the file readable by its user only); a failure is a note."""
    path = _told_path()
    known = _load_told(path)
    known[_told_key(ctx, player)] = told.model_dump()
    try:
        write_private_json(path, known)
    except OSError as error:
        typer.echo(f"scat: note: could not remember what was told in {path}: {error.strerror}", err=True)
