"""Transcripts and export formats: pure functions over events and records."""

from __future__ import annotations

import json

import pytest

from scat_cli.transcript import PublicTable, describe, narrate
from scat_core.domain import events as ev
from scat_core.domain.errors import BadInput, RuleViolation
from scat_core.domain.options import GameOptions
from scat_core.domain.views import HIDDEN
from scat_core.service.exports import parse_export, to_json, to_jsonl


def table_of_three() -> PublicTable:
    """A table of ann, bob (a bot) and cid, ann dealing."""
    table = PublicTable()
    table.apply(ev.GameCreated(
        game_id="g", players=(ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob", is_bot=True),
                              ev.PlayerSeat(name="cid")),
        options=GameOptions(), dealer="ann", dealer_drawn=False, seed_commitment="c" * 64,
    ))
    return table


def test_a_redacted_deal_names_only_the_cards_it_shows() -> None:
    deck = ["2C", HIDDEN, HIDDEN, "3C", HIDDEN, HIDDEN, "4C", HIDDEN, HIDDEN, "5S", *[HIDDEN] * 42]
    text = describe(ev.HandDealt(hand_number=1, dealer="ann", deck=tuple(deck)), table_of_three())
    assert text == "ann dealt hand 1: bob 2C 3C 4C; the discard pile starts with 5S"


def test_a_draw_and_the_discard_after_it_are_told_as_one_turn() -> None:
    lines = narrate([ev.CardDrawn(player="bob", source="stock", card=HIDDEN),
                     ev.CardDiscarded(player="bob", card="7C"), ev.Knocked(player="cid")], table_of_three())
    assert lines == ["bob drew from the stock and discarded 7C", "cid knocked"]


def signed(player: str) -> ev.MoveSigned:
    return ev.MoveSigned(player=player, move={"type": "Draw"}, at_seq=3, at_tag="t" * 64, key_id="k" * 16,
                         public_key="p" * 44, signature="s" * 88)


def test_a_signed_move_is_one_line_marked_signed_and_its_key_is_not_told() -> None:
    lines = narrate([signed("cid"), ev.CardDrawn(player="cid", source="stock", card=HIDDEN), signed("cid"),
                     ev.CardDiscarded(player="cid", card="7C"), ev.CardDrawn(player="bob", source="stock",
                                                                            card=HIDDEN),
                     ev.CardDiscarded(player="bob", card="8C"), signed("cid"), ev.Knocked(player="cid")],
                    table_of_three())
    assert lines == ["cid drew from the stock and discarded 7C  ✓ signed",
                     "bob drew from the stock and discarded 8C", "cid knocked  ✓ signed"]


def test_pennies_and_the_kitty_are_counted_along() -> None:
    table = table_of_three()
    assert narrate([ev.PennyPaid(player="bob"), ev.PennyPaid(player="bob")], table) == [
        "bob paid a penny into the kitty (2 left; kitty 1)",
        "bob paid a penny into the kitty (1 left; kitty 2)",
    ]


def table_of(*names: str, options: GameOptions | None = None) -> PublicTable:
    """A table of human players seated in the order given, the first dealing."""
    table = PublicTable()
    table.apply(ev.GameCreated(
        game_id="g", players=tuple(ev.PlayerSeat(name=name) for name in names), options=options or GameOptions(),
        dealer=names[0], dealer_drawn=False, seed_commitment="c" * 64,
    ))
    return table


def test_a_look_at_a_hand_is_told_without_a_pronoun() -> None:
    assert describe(ev.HandViewed(player="ann"), table_of_three()) == "ann looked at the hand dealt to ann"


def test_a_reshuffled_stock_is_told_in_plain_english() -> None:
    text = describe(ev.StockReshuffled(stock=(HIDDEN,) * 20), table_of_three())
    assert text == ("the stock ran out: the discard pile, all but its top card, was shuffled into a new stock "
                    "of 20 cards")


def test_the_last_penny_mentions_the_dole_only_in_games_that_have_one() -> None:
    dole, no_dole = table_of("ann", "bob", options=GameOptions(lives=1)), table_of(
        "ann", "bob", options=GameOptions(lives=1, no_dole=True))
    on_dole = "bob paid a penny into the kitty (none left: on the dole; kitty 1)"
    assert describe(ev.PennyPaid(player="bob"), dole) == on_dole
    assert describe(ev.PennyPaid(player="bob"), no_dole) == "bob paid a penny into the kitty (none left; kitty 1)"


def test_a_showdown_lists_hands_and_losses_in_seat_order_whatever_the_event_order() -> None:
    event = ev.ShowdownHeld(caller="bob", hands={"cid": ("2C", "3D", "4H"), "ann": ("AS", "KS", "QS"),
                                                 "bob": ("9H", "8H", "2S")},
                            values={"cid": 4, "ann": 31, "bob": 17}, lives_lost={"cid": 1, "bob": 1})
    assert describe(event, table_of_three()) == (
        "showdown called by bob: ann 31 (AS KS QS), bob 17 (9H 8H 2S), cid 4 (2C 3D 4H); lost: bob 1 life, cid 1 life"
    )


def test_a_player_called_you_is_told_as_you_are() -> None:
    assert describe(ev.PlayerEliminated(player="you"), table_of("ann", "you")) == "you are out of the game"
    assert describe(ev.PlayerEliminated(player="ann"), table_of("ann", "you")) == "ann is out of the game"


def records() -> list[dict[str, object]]:
    """Two records shaped like an export (hashes are not checked here)."""
    return [
        {"game_id": "g", "seq": seq, "type": "Knocked", "schema_version": 1, "recorded_at": "t",
         "data": {"player": "ann"}, "prev_hash": "0" * 64, "hash": str(seq) * 64}
        for seq in (1, 2)
    ]


def test_jsonl_and_json_exports_read_back_to_the_same_records() -> None:
    assert parse_export(to_jsonl(records())) == records()
    assert parse_export(to_json(records())) == records()


def test_a_json_export_with_a_cut_tail_is_refused() -> None:
    document = json.loads(to_json(records()))
    document["events"].pop()
    with pytest.raises(RuleViolation, match="events were removed"):
        parse_export(json.dumps(document))


@pytest.mark.parametrize("text", ["", "hello", "[]", '{"a": 1}', '[{"seq": "1"}]', '{"seq": 1, "hash": "x"}'])
def test_text_that_is_no_export_is_bad_input(text: str) -> None:
    with pytest.raises(BadInput):
        parse_export(text)
