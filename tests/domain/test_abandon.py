"""Abandoning a game: valid in every rules version, by the last human still in it (or, when no
human is, by the owner of the database), it ends the game without a winner and reveals the seed,
so the audit still checks every deal. Bots never give a game up."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import AbandonGame, CreateGame, Resign
from scat_core.domain.decide import decide
from scat_core.domain.errors import NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from tests.support.domain import CHANCE, GAME_ID, given, play, records_for, seats

VERSIONS = [1, 2, 3]


def game(*names: str, bots: tuple[str, ...] = (), rules_version: ev.RulesVersion = 3) -> list[ev.Event]:
    command = CreateGame(GAME_ID, seats(*names, bots=bots), GameOptions(), dealer=names[0],
                         rules_version=rules_version)
    return decide(GameState(), command, CHANCE)


@pytest.mark.parametrize("rules_version", VERSIONS)
def test_a_bots_only_game_is_abandoned_by_the_databases_owner_and_audits_with_its_seed(
    rules_version: ev.RulesVersion,
) -> None:
    events = game("b0", "b1", bots=("b0", "b1"), rules_version=rules_version)
    seed, salt = CHANCE.reveal()
    state = given(events).when(AbandonGame(None)).then([ev.GameAbandoned(by=None, seed=seed, seed_salt=salt)])
    assert (state.status, state.winner, state.abandoned, state.turn) == ("finished", None, True, None)
    report = audit_records(records_for([*events, ev.GameAbandoned(by=None, seed=seed, seed_salt=salt)]))
    assert (report.ok, report.problems, report.seed_verified) == (True, [], True)


@pytest.mark.parametrize("rules_version", VERSIONS)
def test_the_last_human_beside_bots_may_abandon_and_is_named(rules_version: ev.RulesVersion) -> None:
    events = game("ann", "b0", bots=("b0",), rules_version=rules_version)
    seed, salt = CHANCE.reveal()
    given(events).when(AbandonGame("ANN")).then([ev.GameAbandoned(by="ann", seed=seed, seed_salt=salt)])
    given(events).when(AbandonGame(None)).then_refused(RuleViolation, match="ann is still in the game")


def test_nobody_abandons_a_game_another_human_is_still_in_until_he_leaves() -> None:
    events = game("ann", "bob", "b0", bots=("b0",))
    given(events).when(AbandonGame("ann")).then_refused(RuleViolation, match="bob is still in the game")
    left = play(events, Resign("bob"))
    assert fold(left).status == "active"
    given(left).when(AbandonGame("ann")).then_starts_with([ev.GameAbandoned(by="ann", seed=CHANCE.reveal()[0],
                                                                           seed_salt=CHANCE.reveal()[1])])
    given(left).when(AbandonGame("bob")).then_refused(RuleViolation, match="ann is still in the game")


def test_a_bot_a_stranger_or_a_finished_game_cannot_abandon() -> None:
    events = game("ann", "b0", bots=("b0",))
    given(events).when(AbandonGame("b0")).then_refused(RuleViolation, match="bots never give a game up")
    given(events).when(AbandonGame("zed")).then_refused(NotFound)
    abandoned = play(events, AbandonGame("ann"))
    given(abandoned).when(AbandonGame("ann")).then_refused(RuleViolation, match="abandoned without a winner")
    given(abandoned).when(Resign("ann")).then_refused(RuleViolation, match="abandoned")
