"""The accounts decider, given events, when a command, then events (or the refusal)."""

from __future__ import annotations

import base64
import hashlib

import pytest

from scat_core.domain import accounts as acc
from scat_core.domain.errors import BadInput, NotFound, RuleViolation

AT, LATER = "2026-12-02T10:00:00.000000Z", "2026-12-09T10:00:00.000000Z"


def key(n: int) -> str:
    """A well-formed public key (32 bytes, base64), the n-th of the test."""
    return base64.b64encode(hashlib.sha256(bytes([n])).digest()).decode("ascii")


def registered(name: str, n: int) -> acc.AccountRegistered:
    return acc.AccountRegistered(name=name, public_key=key(n), key_id=acc.key_id_of(key(n)), at=AT)


def when(given: list[acc.AnyAccountEvent], command: acc.AccountCommand) -> list[acc.AnyAccountEvent]:
    return acc.decide(acc.fold(given), command)


def test_a_new_name_with_a_new_key_is_registered_normalised() -> None:
    assert when([], acc.RegisterAccount("  ann ", key(1), AT)) == [registered("ann", 1)]


def test_the_key_id_is_sixteen_hex_digits_of_the_keys_sha256() -> None:
    assert acc.key_id_of(key(1)) == hashlib.sha256(base64.b64decode(key(1))).hexdigest()[:16]


@pytest.mark.parametrize("name", ["ann", "Ann", "ANN", "аnn", " ANN "])
def test_a_taken_name_or_one_looking_like_it_is_refused(name: str) -> None:
    with pytest.raises(acc.AccountNameTaken, match="'ann'"):
        when([registered("ann", 1)], acc.RegisterAccount(name, key(2), AT))


@pytest.mark.parametrize("name", ["bea", "ann", "ɑnn"])  # its own name or a look-alike: it is that account's key
def test_a_key_registered_already_is_refused_under_any_name(name: str) -> None:
    with pytest.raises(acc.KeyAlreadyRegistered, match="to the account 'ann'"):
        when([registered("ann", 1)], acc.RegisterAccount(name, key(1), AT))


@pytest.mark.parametrize("name", ["", " ", "x" * 33, "no/slash", "-dash-first"])
def test_a_name_that_is_no_player_name_is_bad_input(name: str) -> None:
    with pytest.raises(BadInput, match="account name"):
        when([], acc.RegisterAccount(name, key(1), AT))


@pytest.mark.parametrize("public_key", ["", "short", key(1)[:-1] + "!", key(1) + "AAAA"])
def test_a_malformed_public_key_is_bad_input(public_key: str) -> None:
    with pytest.raises(BadInput, match="is not a public key"):
        when([], acc.RegisterAccount("ann", public_key, AT))


def test_a_rekey_gives_the_account_a_new_key_and_keeps_the_old_one_in_its_history() -> None:
    made = when([registered("ann", 1)], acc.RekeyAccount("ANN", key(2), LATER))
    assert made == [acc.AccountRekeyed(name="ann", public_key=key(2), key_id=acc.key_id_of(key(2)),
                                       previous_key_id=acc.key_id_of(key(1)), at=LATER)]
    accounts = acc.fold([registered("ann", 1), *made])
    ann = accounts.named("ann")
    assert ann is not None and [k.public_key for k in ann.keys] == [key(1), key(2)]
    assert ann.key.since == LATER and ann.registered_at == AT
    assert accounts.holding(acc.key_id_of(key(2))) == ann
    assert accounts.holding(acc.key_id_of(key(1))) is None  # replaced: no longer acts for ann


def test_a_key_once_replaced_is_not_given_again() -> None:
    history = [registered("ann", 1), *when([registered("ann", 1)], acc.RekeyAccount("ann", key(2), LATER))]
    with pytest.raises(acc.KeyAlreadyRegistered):
        when(history, acc.RegisterAccount("bea", key(1), LATER))
    with pytest.raises(acc.KeyAlreadyRegistered):
        when(history, acc.RekeyAccount("ann", key(1), LATER))


def test_a_rekey_of_no_account_is_not_found() -> None:
    with pytest.raises(acc.NoSuchAccount, match="named 'zoe'"):
        when([registered("ann", 1)], acc.RekeyAccount("zoe", key(2), LATER))


def test_account_events_are_past_tense_with_a_schema_version_and_read_back_from_their_data() -> None:
    history = with_laptop()
    history += when(history, acc.RevokeKey("ann", acc.key_id_of(key(2)), acc.key_id_of(key(1)), LATER))
    for event in (*history, *when([registered("ann", 1)], acc.RekeyAccount("ann", key(2), LATER))):
        assert event.type.endswith("ed") and event.schema_version == 1
        assert acc.ACCOUNT_EVENT.validate_python(event.model_dump(mode="json")) == event


def with_laptop() -> list[acc.AnyAccountEvent]:
    """ann registered with key 1 and added key 2 (her laptop) with it."""
    history: list[acc.AnyAccountEvent] = [registered("ann", 1)]
    return history + when(history, acc.AddKey("ann", key(2), " laptop ", acc.key_id_of(key(1)), LATER))


def test_an_account_adds_another_devices_key_and_both_act_for_it() -> None:
    history = with_laptop()
    assert history[-1] == acc.AccountKeyAdded(name="ann", public_key=key(2), key_id=acc.key_id_of(key(2)),
                                              label="laptop", by=acc.key_id_of(key(1)), at=LATER)
    accounts = acc.fold(history)
    ann = accounts.named("ann")
    assert ann is not None and [period.label for period in ann.active] == ["", "laptop"]
    assert accounts.holding(acc.key_id_of(key(1))) == accounts.holding(acc.key_id_of(key(2))) == ann


def test_a_key_some_account_has_or_had_is_not_added_again() -> None:
    history = [*with_laptop(), registered("bea", 3)]
    for taken in (key(2), key(3)):
        with pytest.raises(acc.KeyAlreadyRegistered):
            when(history, acc.AddKey("ann", taken, "", acc.key_id_of(key(1)), LATER))


def test_a_key_is_added_only_by_a_key_acting_for_the_account() -> None:
    with pytest.raises(acc.NoSuchAccount, match="acting with the key"):
        when([registered("ann", 1), registered("bea", 3)], acc.AddKey("ann", key(2), "", acc.key_id_of(key(3)), LATER))


def test_a_label_with_control_characters_or_too_long_is_bad_input() -> None:
    for label in ("x" * 65, "evil\nline", "bell\x07"):
        with pytest.raises(BadInput, match="label"):
            when([registered("ann", 1)], acc.AddKey("ann", key(2), label, acc.key_id_of(key(1)), LATER))


def test_a_revoked_key_acts_no_more_and_is_never_given_again_but_its_past_stays() -> None:
    history = with_laptop()
    laptop = acc.key_id_of(key(2))
    history += when(history, acc.RevokeKey("ann", laptop, acc.key_id_of(key(1)), "2026-12-10T10:00:00.000000Z"))
    accounts = acc.fold(history)
    assert accounts.holding(laptop) is None and accounts.holding(acc.key_id_of(key(1))) is not None
    ann = accounts.named("ann")
    assert ann is not None and [period.key_id for period in ann.active] == [acc.key_id_of(key(1))]
    period = ann.period(laptop)
    assert period is not None and period.held_at(LATER) and not period.held_at("2026-12-10T10:00:00.000000Z")
    with pytest.raises(acc.KeyAlreadyRegistered):
        when(history, acc.AddKey("ann", key(2), "", acc.key_id_of(key(1)), LATER))
    with pytest.raises(RuleViolation, match="stopped already"):
        when(history, acc.RevokeKey("ann", laptop, acc.key_id_of(key(1)), LATER))


def test_the_last_key_of_an_account_is_not_revoked_and_a_key_it_never_had_is_not_found() -> None:
    with pytest.raises(RuleViolation, match="last key"):
        when([registered("ann", 1)], acc.RevokeKey("ann", acc.key_id_of(key(1)), acc.key_id_of(key(1)), LATER))
    with pytest.raises(NotFound, match="no key"):
        when(with_laptop(), acc.RevokeKey("ann", "0123456789abcdef", acc.key_id_of(key(1)), LATER))


def test_a_device_may_revoke_its_own_key_while_another_acts_for_the_account() -> None:
    laptop = acc.key_id_of(key(2))
    made = when(with_laptop(), acc.RevokeKey("ann", laptop, laptop, LATER))
    assert made == [acc.AccountKeyRevoked(name="ann", key_id=laptop, by=laptop, at=LATER)]


def test_a_rekey_replaces_every_key_the_account_had() -> None:
    history = with_laptop()
    history += when(history, acc.RekeyAccount("ann", key(4), "2026-12-10T10:00:00.000000Z"))
    accounts = acc.fold(history)
    ann = accounts.named("ann")
    assert ann is not None and [period.key_id for period in ann.active] == [acc.key_id_of(key(4))]
    assert accounts.holding(acc.key_id_of(key(1))) is None and accounts.holding(acc.key_id_of(key(2))) is None


def test_an_account_holds_at_most_keys_max_keys() -> None:
    history: list[acc.AnyAccountEvent] = [registered("ann", 1)]
    for n in range(2, acc.KEYS_MAX + 1):
        history += when(history, acc.AddKey("ann", key(n), f"device {n}", acc.key_id_of(key(1)), LATER))
    with pytest.raises(RuleViolation, match="the most it may hold"):
        when(history, acc.AddKey("ann", key(99), "", acc.key_id_of(key(1)), LATER))
