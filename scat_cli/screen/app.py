"""The play screen (Textual): one game as its player sees it, a key per move, others' moves as they happen.

Every call goes to the `Games` boundary (the game service, or its client through --server)
on a thread, never on the screen's: a move, then `show` for the view after it; and a follower
thread that reads `Games.watch` (the push of `scat watch`, as the public sees it: a watch as the
player would record a look) and, for each new event, has the screen `show` the game again.
Refusals are shown in the CLI's one-line wording, with their rule.

In a throw-down game (R23) the screen records no look of its own: a hand dealt face down stays
so (`show(look=False)`) until the player presses `l` (a look, as `scat show --as` is) or acts,
so that `t` (throw down, unseen) stays his to press. In a game with a move time (R28) the line
of `scat show` telling how long the player to act has left counts down each second. `m` opens a
line to type a message into (`scat say`): Enter says it, Escape closes it unsaid.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from scat_cli.screen import keys as keymap
from scat_cli.screen.panes import clock_text, coloured, news_text, table_text, talk_text, title_text

if TYPE_CHECKING:
    import typer

    from scat_core.service.boundary import Games
    from scat_core.service.values import Shown


class EventSeen(Message):
    """The follower saw the game's event `seq` appended."""

    def __init__(self, seq: int) -> None:
        super().__init__()
        self.seq = seq


class FollowLost(Message):
    """The follower lost the server (or its database): `error` (the line to show); it tries again after
    `delay` seconds (try number `tries`)."""

    def __init__(self, error: str, delay: float, tries: int) -> None:
        super().__init__()
        self.error, self.delay, self.tries = error, delay, tries


class FollowBack(Message):
    """The follower reaches the server again after a loss."""


class FollowStopped(Message):
    """The follower stopped: the game is over, or `error` (the line to show) ended its stream."""

    def __init__(self, error: str | None) -> None:
        super().__init__()
        self.error = error


class ResignDialog(ModalScreen[bool]):
    """Asks before a resignation, which cannot be taken back (R27): y resigns, n or Escape does not."""

    BINDINGS = [Binding("y", "answer(True)", "yes"), Binding("n", "answer(False)", "no"),
                Binding("escape", "answer(False)", "no")]
    DEFAULT_CSS = """
    ResignDialog { align: center middle; }
    #question { width: 60; height: auto; border: heavy $error; padding: 1 2; background: $surface; }
    """

    def __init__(self, game_id: str) -> None:
        super().__init__()
        self.game_id = game_id

    def compose(self) -> ComposeResult:
        """The question and its two answers."""
        yield Static(f"Resign from game {self.game_id}? You leave it for good: your cards are set aside, "
                     "the others play on without you (R27).\n\n[y] resign    [n] keep playing", id="question",
                     markup=False)

    def action_answer(self, yes: bool) -> None:
        """Close the dialog with the answer."""
        self.dismiss(yes)


class SayLine(Input):
    """The line a message is typed into: Enter says it (the app's `on_input_submitted`), Escape closes it."""

    BINDINGS = [Binding("escape", "close", "close", show=False)]

    def action_close(self) -> None:
        """Close the line, nothing said."""
        self.value = ""
        self.display = False
        self.app.set_focus(None)


class PlayScreenApp(App[None]):
    """`scat play GAME --as NAME`: the table, your hand, the moves since your last, your keys."""

    TITLE = "scat play"
    CSS = """
    #body { height: 1fr; }
    #table { height: auto; }
    #clock { height: auto; }
    #news { height: auto; margin-top: 1; }
    #status { height: auto; min-height: 1; text-style: bold; }
    #notice { height: auto; color: $error; text-style: bold; }
    #keys { height: auto; border-top: solid $primary; }
    #talk { height: auto; margin-top: 1; }
    #say { display: none; }
    """
    BINDINGS = [*(Binding(key, f"press({key!r})", show=False) for key in keymap.MOVE_KEYS),
                Binding("m", "speak", "say", show=False), Binding("q", "quit", "quit", show=False)]

    def __init__(self, ctx: typer.Context, games: Games, shown: Shown, player: str, token: str | None) -> None:
        super().__init__()
        self.ctx, self.games, self.game_id, self.player, self.token = ctx, games, shown.game_id, player, token
        self.shown: Shown = shown
        self.shown_at = time.monotonic()  # when `shown` came: its move time left counts down from then
        self.clock_claimed = False  # the refresh owed once the move time shown ran out was asked for
        self.notice = ""  # the last refusal or failure, until the next view
        self.busy = False  # a call to the service is under way: keys wait for it
        self.newest_seen = 0  # the seq of the newest event the follower saw
        self.follow_ended = False
        self.reconnecting = False  # the follower lost the server and tries again
        self.refresh_owed = False  # the server is back while a call was under way: show the game after it
        self.back_told = False  # the next view says the server is back
        self._stopping = threading.Event()

    def compose(self) -> ComposeResult:
        """The table and the news (scrolling when long), then whose turn, a refusal, the keys."""
        with Vertical():
            with VerticalScroll(id="body"):
                yield Static(id="table", markup=False)
                yield Static(id="clock", markup=False)
                yield Static(id="news", markup=False)
                yield Static(id="talk", markup=False)
            yield Static("Loading the game …", id="status", markup=False)
            yield Static(id="notice", markup=False)
            yield SayLine(placeholder="say to the table (Enter says it, Escape closes)", max_length=500, id="say")
            yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        """Show the game as given, then follow it; the move time left (R28) is told again each second."""
        self._paint()
        self.set_interval(1.0, self._tick)
        threading.Thread(target=self._follow, name=f"scat-play-follow-{self.game_id}", daemon=True).start()

    def on_unmount(self) -> None:
        """Tell the follower to stop (it stops at its next event)."""
        self._stopping.set()

    # The follower: a plain daemon thread, not a Textual worker, whose threads the event loop
    # waits for at exit: a watch blocked until the next move would hold up `q`. A server (or
    # database) that goes away, a restart say, is tried again with backoff (server/backoff.py),
    # said on the screen, and once it answers the game is shown again.
    def _follow(self) -> None:
        from scat_cli.remote.backoff import Backoff
        from scat_core.domain.errors import Unavailable

        error: str | None = None
        def pause(seconds: float) -> None:  # a wait that `q` cuts short
            self._stopping.wait(seconds)

        backoff = Backoff(None, note=lambda _: None, sleep=pause)
        lost = False
        while not self._stopping.is_set():
            try:
                for seen in self.games.watch(self.game_id):  # the public's: a player's watch would be a look (R23)
                    if self._stopping.is_set():
                        return
                    if lost:
                        lost = False
                        backoff.reset()
                        self.post_message(FollowBack())
                    self.post_message(EventSeen(seen.seq))
                break  # the game is over
            except Unavailable as failure:  # the server restarting, a connection dropped: again, later
                lost = True
                self.post_message(FollowLost(self._worded(failure), backoff.delay(), backoff.tries + 1))
                backoff.after(failure)
            except Exception as failure:  # noqa: BLE001 - told on the screen, never a crash
                error = self._worded(failure)
                break
        if not self._stopping.is_set():
            self.post_message(FollowStopped(error))

    def on_event_seen(self, message: EventSeen) -> None:
        """A new event: show the game again (once the call under way, if any, is done)."""
        self.newest_seen = max(self.newest_seen, message.seq)
        if not self.busy and self._stale():
            self._call(self._view)

    def on_follow_lost(self, message: FollowLost) -> None:
        """The server is away: said on the screen, with when it is tried again."""
        self.reconnecting = True
        self.notice = f"{message.error}: reconnecting (try {message.tries}, in {message.delay:.1f} s) …"
        self._paint()

    def on_follow_back(self, message: FollowBack) -> None:
        """The server answers again: said, and the game shown again (the hand may have changed meanwhile)."""
        self.reconnecting, self.back_told = False, True
        self.notice = "Reconnected to the server."
        if self.busy:
            self.refresh_owed = True
        else:
            self._call(self._view)

    def on_follow_stopped(self, message: FollowStopped) -> None:
        """The follower is done: the game is over, or its stream failed (said on the screen)."""
        self.follow_ended = True
        if message.error:
            self.notice = f"{message.error} (others' moves now show only after yours: run `scat play` again)"
            self._paint()

    def _stale(self) -> bool:
        return self.newest_seen > self.shown.state.version

    def _view(self, look: bool = False) -> Shown:
        """The game now as the player may know it; no look recorded (R23) unless `look`."""
        return self.games.show(self.game_id, self.player, self.token, look=look)

    def time_left(self) -> int | None:
        """The seconds the player to act has left now (R28), counted down from the view's; None without a move time."""
        left = self.shown.move_time_left
        if left is None:
            return None
        return max(0, left - int(time.monotonic() - self.shown_at))

    def _tick(self) -> None:
        """Each second: the move time left told again; once it ran out, the game shown again (which
        claims the late turn as `scat show` does, or shows the server's claim)."""
        left = self.time_left()
        if left is None:
            return
        self.query_one("#clock", Static).update(coloured(clock_text(self.shown, left), not self.no_color))
        if left == 0 and not self.clock_claimed and not self.busy:
            self.clock_claimed = True
            self._call(self._view)

    def action_press(self, key: str) -> None:
        """A move key: resign asks first; a move not offered is sent too, so the service names its rule."""
        if self.busy:
            return
        if key == "l":
            self._call(lambda: self._view(look=True))
            return
        if key in keymap.SEAT_KEYS:  # a game waiting for its players (R28)
            verb = keymap.SEAT_KEYS[key]

            def answer_then_show() -> Shown:
                getattr(self.games, verb)(self.game_id, keymap.you(self.shown) or self.player, self.token)
                return self._view()

            self._call(answer_then_show)
            return
        command = keymap.command_for(key, self.shown)
        if isinstance(command, str):
            self.notice = command
            self._paint()
            return
        if key == "r":
            self.push_screen(ResignDialog(self.game_id), lambda yes: self._send(command) if yes else None)
            return
        self._send(command)

    def action_speak(self) -> None:
        """Open the line to type a message into."""
        line = self.query_one("#say", SayLine)
        line.display = True
        line.focus()

    def on_input_submitted(self, submitted: Input.Submitted) -> None:
        """Say the line typed (`scat say`), then show the game with it."""
        line = self.query_one("#say", SayLine)
        text, line.value, line.display = submitted.value, "", False
        self.set_focus(None)
        if not text.strip() or self.busy:
            return

        def say_then_show() -> Shown:
            self.games.say(self.game_id, self.player, text, self.token)
            return self._view()

        self._call(say_then_show)

    def _send(self, command: Any) -> None:
        def move_then_show() -> Shown:
            self.games.move(self.game_id, command, self.token)
            return self._view()

        self._call(move_then_show)

    def _call(self, job: Callable[[], Shown]) -> None:
        """Run `job` (service calls) on a thread; its view, or its refusal, comes back to the screen."""
        self.busy = True
        self.query_one("#status", Static).update("…")

        def run() -> None:
            try:
                shown = job()
            except Exception as failure:  # noqa: BLE001 - a refusal is told on the screen, never a crash
                self.call_from_thread(self._done, None, self._worded(failure))
                return
            self.call_from_thread(self._done, shown, "")

        self.run_worker(run, thread=True, group="service", exit_on_error=False)

    def _done(self, shown: Shown | None, notice: str) -> None:
        self.busy = False
        back = "Reconnected to the server: the game as it is now." if self.back_told and shown is not None else ""
        self.back_told = self.back_told and shown is None
        self.notice = notice or (self.notice if self.reconnecting else back)
        if shown is not None:
            self.shown, self.shown_at, self.clock_claimed = shown, time.monotonic(), False
        self._paint()
        if self._stale() or self.refresh_owed:  # events came meanwhile (others' moves), or the server came back
            self.refresh_owed = False
            self._call(self._view)

    def _worded(self, failure: Exception) -> str:
        """An error in the CLI's one-line wording (its rule number, its hint as a command)."""
        from scat_cli.command_lines import runnable
        from scat_core.domain.errors import ScatError

        if not isinstance(failure, ScatError):
            return f"{type(failure).__name__}: {failure}"
        from scat_cli.errors import wording

        return runnable(wording(failure))

    def _paint(self) -> None:
        """Draw the view held, the notice and the keys offered now."""
        shown, colour = self.shown, not self.no_color
        self.query_one("#table", Static).update(coloured(table_text(shown), colour))
        left = self.time_left()
        self.query_one("#clock", Static).update(coloured(clock_text(shown, left) if left is not None else "", colour))
        self.query_one("#news", Static).update(coloured(news_text(self.ctx, shown), colour))
        self.query_one("#talk", Static).update(talk_text(shown))
        self.query_one("#status", Static).update(title_text(self.ctx, shown))
        self.query_one("#notice", Static).update(self.notice)
        words = [f"[{key.key}] {key.label}" for key in keymap.offered(shown)] + ["[m] say", "[q] quit"]
        self.query_one("#keys", Static).update(coloured("   ".join(words), colour))

    def offered_keys(self) -> list[str]:
        """The keys offered now (what the keys line lists, quit aside)."""
        return [key.key for key in keymap.offered(self.shown)]
