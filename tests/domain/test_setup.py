"""R6-R11: players, seats, lives, the dealer, the deal and the first turn."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from pydantic import ValidationError

from scat_core.domain import events as ev
from scat_core.domain.audit import audit_events
from scat_core.domain.commands import CreateGame, Declare31, Discard, Draw, Knock
from scat_core.domain.errors import BadInput, NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.names import NAME_LOOKS
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from tests.support.decks import cards, stacked_deck
from tests.support.domain import CHANCE, COMMITMENT, GAME_ID, create, dealt, given, play, seats, take_turn

ABCD = ("A", "B", "C", "D")


def new_game(*names: str, dealer: str | None = None, name_looks: int = NAME_LOOKS, **options: Any) -> CreateGame:
    return CreateGame(game_id=GAME_ID, players=seats(*names), options=GameOptions(**options), dealer=dealer,
                      name_looks=name_looks)


def test_r6_r9_creating_a_game_records_the_seats_and_deals_the_first_hand_from_the_seed() -> None:
    given([]).when(new_game("Ann", "Bob", "Cy", dealer="Bob")).then(
        [
            ev.GameCreated(
                game_id=GAME_ID,
                players=seats("Ann", "Bob", "Cy"),
                options=GameOptions(),
                dealer="Bob",
                dealer_drawn=False,
                seed_commitment=COMMITMENT,
                name_looks=2,  # its names told apart by Unicode's confusables too
            ),
            ev.HandDealt(hand_number=1, dealer="Bob", deck=tuple(CHANCE.deck(1)), stacked=False),
        ]
    )


@pytest.mark.parametrize("count", [2, 9])
def test_r6_two_to_nine_players_may_play(count: int) -> None:
    names = [f"P{index}" for index in range(count)]
    state = fold(given([]).when(new_game(*names, dealer="P0")).then_starts_with([])[0])
    assert [player.name for player in state.players] == names
    assert [player.seat for player in state.players] == list(range(count))
    assert all(len(hand) == 3 for hand in state.hands)


@pytest.mark.parametrize("count", [0, 1, 10])
def test_r6_a_game_for_fewer_than_two_or_more_than_nine_players_is_refused(count: int) -> None:
    names = [f"P{index}" for index in range(count)]
    given([]).when(new_game(*names)).then_refused(RuleViolation, "R6", match=f"not {count}")


def test_r6_player_names_must_differ_ignoring_case() -> None:
    given([]).when(new_game("Ann", "Bob", "ANN")).then_refused(BadInput, match="ANN|Ann")


@pytest.mark.parametrize("alike", ["ɑnn", "aոո", "ᴀnn", "аnn", "Ꭺnn"])
def test_r6_player_names_that_look_alike_by_unicodes_confusables_are_one_name(alike: str) -> None:
    # cli.md: names that look alike (the skeletons of UTS #39: ɑnn, aոո, ᴀnn for ann) are one name
    given([]).when(new_game("ann", "Bob", alike)).then_refused(BadInput, match="look alike")


def test_r6_a_game_made_before_names_were_told_apart_by_unicodes_confusables_replays_and_audits_as_made() -> None:
    made = new_game("ann", "ɑnn", dealer="ann", name_looks=1)  # scat's own skeleton told them apart
    events = given([]).when(made).then_starts_with([])[0]
    assert isinstance(events[0], ev.GameCreated) and events[0].name_looks == 1
    assert "name_looks" not in events[0].model_dump(mode="json")  # recorded, and hashed, as before
    assert [player.name for player in fold(events).players] == ["ann", "ɑnn"]
    report = audit_events(GAME_ID, events)
    assert report.ok, report.problems
    given([]).when(new_game("ann", "ɑnn", dealer="ann")).then_refused(BadInput, match="look alike")


@pytest.mark.parametrize("name", ["", " Ann", "A" * 33, "Ann;drop", "Ann\tB"])
def test_r6_unusable_player_names_are_refused(name: str) -> None:
    given([]).when(new_game(name, "Bob")).then_refused(BadInput, match="not a usable player name")


def test_r6_a_player_name_ending_in_a_newline_is_refused() -> None:
    given([]).when(new_game("Ann\n", "Bob")).then_refused(BadInput, match="not a usable player name")


def test_r6_player_commands_name_players_ignoring_case() -> None:
    events = create(ABCD, dealer="D", hands={"A": "2C 3C 4C", "B": "2D 3D 4D", "C": "2H 3H 4H", "D": "2S 3S 4S"},
                    discard="5C", stock="6C")
    state = given(events).when(Draw("a", "stock")).then(
        [ev.CardDrawn(player="A", source="stock", card="6C")]
    )
    assert state.hands[0] == cards("2C 3C 4C 6C")


def test_a_command_for_a_player_not_in_the_game_is_refused_as_not_found() -> None:
    events = create(ABCD, dealer="D")
    given(events).when(Draw("Zed", "stock")).then_refused(NotFound, match="Zed")
    given([]).when(Draw("A", "stock")).then_refused(NotFound, match="no such game")


def test_a_game_cannot_be_created_twice() -> None:
    given(create(ABCD, dealer="A")).when(new_game(*ABCD)).then_refused(RuleViolation, match="exists already")


@pytest.mark.parametrize("lives", [1, 3, 9])
def test_r7_every_player_starts_with_the_same_number_of_lives_and_the_kitty_is_empty(lives: int) -> None:
    state = fold(create(ABCD, dealer="A", lives=lives))
    assert [player.pennies for player in state.players] == [lives] * 4
    assert not any(player.out or player.on_dole for player in state.players)
    assert state.kitty == 0


def test_r7_three_lives_by_default_and_lives_outside_one_to_nine_are_refused() -> None:
    assert GameOptions().lives == 3
    for lives in (0, 10):
        with pytest.raises(ValidationError):
            GameOptions(lives=lives)


def test_r8_a_named_dealer_deals_the_first_hand_spelled_as_seated() -> None:
    events = create(ABCD, dealer="c")
    assert isinstance(events[0], ev.GameCreated) and isinstance(events[1], ev.HandDealt)
    assert (events[0].dealer, events[0].dealer_drawn, events[1].dealer) == ("C", False, "C")
    assert fold(events).dealer == 2


def test_r8_a_dealer_who_is_not_playing_is_refused() -> None:
    given([]).when(new_game(*ABCD, dealer="Zed")).then_refused(NotFound, match="Zed")


def _documented_dealer_draw(seed: str, players: int) -> int:
    """The first word of the "dealer" stream of scat-shuffle-v1, rejection-sampled."""
    limit = 2**32 - (2**32 % players)
    for counter in range(10):
        block = hmac.new(seed.encode(), f"scat-shuffle-v1|dealer|{counter}".encode(), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            word = int.from_bytes(block[offset : offset + 4], "big")
            if word < limit:
                return word % players
    raise AssertionError("unreachable")


def test_r8_without_a_named_dealer_the_dealer_is_drawn_from_the_seed() -> None:
    dealers = set()
    for number in range(40):
        chance = SeededChance(f"seed-{number}", "salt")
        events = create(ABCD, dealer=None, chance=chance)
        created = events[0]
        assert isinstance(created, ev.GameCreated)
        assert created.dealer_drawn is True
        assert created.dealer == ABCD[_documented_dealer_draw(f"seed-{number}", 4)]
        assert create(ABCD, dealer=None, chance=chance)[0] == created  # the same seed, the same dealer
        dealers.add(created.dealer)
    assert dealers == set(ABCD)


def _first_hand_ends_with_a_declaration(dealer: str) -> list[ev.Event]:
    """Hand 1 of A, B, C, D dealt by `dealer`; A holds 31 (and will declare it)."""
    hands = {"A": "AS KS QS", "B": "2D 3D 4D", "C": "2H 3H 4H", "D": "2C 3C 4C"}
    return create(ABCD, dealer=dealer, hands=hands)


@pytest.mark.parametrize(("dealer", "next_dealer"), [("A", "B"), ("C", "D"), ("D", "A")])
def test_r8_after_a_hand_the_deal_passes_to_the_left(dealer: str, next_dealer: str) -> None:
    produced, state = given(_first_hand_ends_with_a_declaration(dealer)).when(Declare31("A")).then_starts_with([])
    deal = produced[-1]
    assert isinstance(deal, ev.HandDealt)
    assert (deal.hand_number, deal.dealer, deal.deck, deal.stacked) == (2, next_dealer, tuple(CHANCE.deck(2)), False)
    assert state.name(state.dealer) == next_dealer


def _dealer_b_is_put_out_in_hand_1() -> list[ev.Event]:
    """A, B, C, D with one life and no dole; B deals; C knocks, B is alone lowest at the showdown."""
    hands = {"C": "AS KS 2H", "D": "AH KH 3C", "A": "AD KD 4C", "B": "2C 3D 5H"}
    events = create(ABCD, dealer="B", hands=hands, discard="9C", stock="6D 7H 8S", lives=1, no_dole=True)
    return play(
        events, Knock("C"), Draw("D", "stock"), Discard("D", "6D"), Draw("A", "stock"),
        Discard("A", "7H"), Draw("B", "stock"),
    )


def test_r8_the_deal_passes_left_of_a_dealer_who_was_just_eliminated() -> None:
    produced, state = given(_dealer_b_is_put_out_in_hand_1()).when(Discard("B", "8S")).then_starts_with([])
    assert [type(event).__name__ for event in produced] == [
        "CardDiscarded", "ShowdownHeld", "PennyPaid", "PlayerEliminated", "HandDealt"
    ]
    assert produced[3] == ev.PlayerEliminated(player="B")
    assert produced[-1] == ev.HandDealt(hand_number=2, dealer="C", deck=tuple(CHANCE.deck(2)))
    assert state.name(state.dealer) == "C"


def test_r9_eliminated_players_are_dealt_no_cards() -> None:
    _, state = given(_dealer_b_is_put_out_in_hand_1()).when(Discard("B", "8S")).then_starts_with([])
    deck = CHANCE.deck(2)
    # C deals: D, A, C in turn, skipping B who is out.
    assert state.hands == (
        (deck[1], deck[4], deck[7]), (), (deck[2], deck[5], deck[8]), (deck[0], deck[3], deck[6])
    )
    assert state.discard == (deck[9],)
    assert state.stock == tuple(deck[10:])
    assert state.name(state.turn) == "D"


@pytest.mark.parametrize(
    ("dealer", "order"), [("B", "CDAB"), ("D", "ABCD"), ("A", "BCDA")]
)
def test_r9_cards_are_dealt_one_at_a_time_clockwise_from_the_dealers_left(dealer: str, order: str) -> None:
    deck = tuple(CHANCE.deck(7))
    command = CreateGame(game_id=GAME_ID, players=seats(*ABCD), dealer=dealer, first_deck=deck)
    state = given([]).when(command).then(
        [
            ev.GameCreated(game_id=GAME_ID, players=seats(*ABCD), options=GameOptions(), dealer=dealer,
                           dealer_drawn=False, seed_commitment=COMMITMENT, first_deck_stacked=True, name_looks=2),
            ev.HandDealt(hand_number=1, dealer=dealer, deck=deck, stacked=True),
        ]
    )
    for position, name in enumerate(order):
        assert state.hands[ABCD.index(name)] == (deck[position], deck[position + 4], deck[position + 8])


def test_r10_the_next_card_starts_the_discard_pile_and_the_rest_is_the_stock_top_first() -> None:
    deck = stacked_deck(["AS KS QS", "2D 3D 4D"], discard="9H", stock="8H 7H")
    state = fold(given([]).when(CreateGame(game_id=GAME_ID, players=seats("A", "B"), dealer="B",
                                           first_deck=deck)).then_starts_with([])[0])
    assert state.hands == (cards("AS KS QS"), cards("2D 3D 4D"))
    assert state.discard == ("9H",)
    assert state.stock == deck[7:] and state.stock[:2] == ("8H", "7H")
    assert len(state.stock) == 52 - 7


def test_r10_a_first_deck_that_is_not_the_52_cards_is_refused() -> None:
    deck = tuple(CHANCE.deck(1))
    bad = CreateGame(game_id=GAME_ID, players=seats("A", "B"), first_deck=deck[:-1] + ("2C",))
    given([]).when(bad).then_refused(BadInput, match="given twice")


def test_decision_later_decks_of_a_stacked_game_still_come_from_its_seed() -> None:
    events = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2D 3D 4D"})
    assert isinstance(events[1], ev.HandDealt) and events[1].stacked
    produced, _ = given(events).when(Declare31("A")).then_starts_with([])
    assert produced[-1] == ev.HandDealt(hand_number=2, dealer="A", deck=tuple(CHANCE.deck(2)), stacked=False)


@pytest.mark.parametrize(("dealer", "first"), [("A", "B"), ("B", "C"), ("D", "A")])
def test_r11_the_player_left_of_the_dealer_takes_the_first_turn(dealer: str, first: str) -> None:
    state = fold(create(ABCD, dealer=dealer))
    assert (state.phase, state.name(state.turn)) == ("draw", first)


def test_r11_turns_pass_clockwise_and_skip_eliminated_players() -> None:
    history = play(_dealer_b_is_put_out_in_hand_1(), Discard("B", "8S"))
    order = []
    for _ in range(4):
        state = fold(history)
        order.append(state.name(state.turn))
        history = take_turn(history)
    assert order == ["D", "A", "C", "D"]


def test_dealt_helper_matches_the_deal_of_a_later_hand() -> None:
    # The helper used to build given histories of later hands deals like the domain.
    event = dealt(ABCD, "D", 2, {"A": "AS KS QS", "B": "2D 3D 4D", "C": "2H 3H 4H", "D": "2C 3C 4C"})
    state = fold([*create(ABCD, dealer="C"), event])
    assert state.hands[0] == cards("AS KS QS") and state.dealer == 3 and state.hand_number == 2


def test_r7_r15_r15b_r23_r25_the_options_that_differ_from_the_defaults_are_described_in_cli_spelling() -> None:
    assert GameOptions().describe() == []
    options = GameOptions(lives=5, three_of_a_kind=True, straight_flush=True, min_knock=20,
                          no_first_round_knock=True, throw_down=True, no_dole=True)
    assert options.describe() == [
        "lives 5", "three-of-a-kind", "straight-flush", "no-first-round-knock", "throw-down", "no-dole", "min-knock 20"
    ]
    # Every on/off option is off by default, so "on" is what differs (describe lists the flags on).
    flags = {name: field.default for name, field in GameOptions.model_fields.items() if field.annotation is bool}
    assert flags and set(flags.values()) == {False}


def test_r6_left_is_the_next_active_seat_and_right_the_previous_one_skipping_players_out() -> None:
    from dataclasses import replace

    state = fold(create(ABCD, dealer="A"))
    assert [state.left_of(seat) for seat in range(4)] == [1, 2, 3, 0]
    assert [state.right_of(seat) for seat in range(4)] == [3, 0, 1, 2]
    players = (state.players[0], replace(state.players[1], out=True), *state.players[2:])
    state = state.evolved({"players": players})
    assert (state.left_of(0), state.right_of(2), state.left_of(1), state.right_of(1)) == (2, 0, 2, 0)
    assert state.active_seats() == [0, 2, 3]


def test_the_stacked_deck_helper_deals_the_hands_wanted_from_a_valid_deck() -> None:
    from scat_core.domain.cards import validate_deck

    deck = stacked_deck(["AS KS QS", "2D 3D 4D"], discard="9H", stock="8H")
    validate_deck(deck)
    assert deck[:8] == ("AS", "2D", "KS", "3D", "QS", "4D", "9H", "8H")
