"""The account service: register, re-key, add and revoke keys, and find the accounts of a server
(event-sourced).

Each use case loads the records that could clash with it, folds them, asks the domain's
decider (scat_core/domain/accounts.py) and appends what it decided, all or nothing; a
concurrent registration that moved the log first makes it decide again on the new log.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from scat_core.domain import accounts as acc
from scat_core.domain.errors import AuthFailed, RuleViolation
from scat_core.domain.names import looks_of, skeleton
from scat_core.domain.options import recorded_text
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.loading import Clock, system_clock
from scat_core.service.ports import AccountLog, AccountRecord

#: How many times a use case decides again when another one appended first.
ATTEMPTS = 8  # the account log has one head: strangers registering at once take turns (with a jittered pause)


class AccountView(BaseModel):
    """An account as a server tells it: its name, the key it is seen with (the one that signed the
    request, else its newest), and when it was registered."""

    model_config = ConfigDict(frozen=True)

    name: str
    key_id: str
    public_key: str
    registered_at: str
    keys: int = 1  # how many keys it has had


class KeyView(BaseModel):
    """One key that acts for an account: its id, public key, label, when it was added, and whether it
    is the key of the device that asked (`this_device`: the request's signer)."""

    model_config = ConfigDict(frozen=True)

    key_id: str
    public_key: str
    label: str
    added_at: str
    this_device: bool = False


class AccountKeys(BaseModel):
    """The keys that act for an account now (`scat account keys`), the first given first."""

    model_config = ConfigDict(frozen=True)

    name: str
    keys: list[KeyView]


def view_of(account: acc.Account, key_id: str | None = None) -> AccountView:
    """The account's view (public: names and public keys only), seen with its key `key_id` if it acts for it."""
    key = (account.acting(key_id) if key_id is not None else None) or account.key
    return AccountView(name=account.name, key_id=key.key_id, public_key=key.public_key,
                       registered_at=account.registered_at, keys=len(account.keys))


def keys_of(account: acc.Account, this_device: str | None = None) -> AccountKeys:
    """The account's acting keys, `this_device` (a key id) marked."""
    return AccountKeys(name=account.name, keys=[
        KeyView(key_id=period.key_id, public_key=period.public_key, label=period.label, added_at=period.since,
                this_device=period.key_id == this_device) for period in account.active])


def events_of(records: Sequence[AccountRecord]) -> list[acc.AnyAccountEvent]:
    """The domain events of stored records."""
    return [acc.ACCOUNT_EVENT.validate_python(record.data) for record in records]


class AccountService:
    """The accounts of one server, over an AccountLog adapter."""

    def __init__(self, log: AccountLog, clock: Clock = system_clock) -> None:
        self.log, self.clock = log, clock

    def register(self, name: str, public_key: str) -> AccountView:
        """Register `public_key` under `name`; AccountNameTaken, KeyAlreadyRegistered or BadInput refuse it."""
        normal = acc.account_name(name)
        command = acc.RegisterAccount(normal, public_key, recorded_text(self.clock()))
        return view_of(self._run(command, normal, acc.key_id_of(public_key)))

    def rekey(self, name: str, public_key: str) -> AccountView:
        """Give the account `name` a new public key in place of all its keys (the operator's, for a user
        who lost his); NoSuchAccount or KeyAlreadyRegistered refuse it."""
        key_id = acc.key_id_of(public_key)
        return view_of(self._run(acc.RekeyAccount(name, public_key, recorded_text(self.clock())), name, key_id),
                       key_id)

    def add_key(self, name: str, public_key: str, label: str, by: str) -> AccountKeys:
        """The account `name`, acting with its key `by`, adds another device's `public_key`; its keys
        after. KeyAlreadyRegistered, RuleViolation (too many keys) or BadInput refuse it."""
        key_id = acc.key_id_of(public_key)
        command = acc.AddKey(name, public_key, label, by, recorded_text(self.clock()))
        return keys_of(self._run(command, name, key_id), by)

    def revoke_key(self, name: str, key_id: str, by: str) -> AccountKeys:
        """The account `name`, acting with its key `by`, stops its key `key_id`; its keys after.
        NotFound (not its key) or RuleViolation (stopped already, its last key) refuse it."""
        command = acc.RevokeKey(name, key_id, by, recorded_text(self.clock()))
        return keys_of(self._run(command, name, key_id), by)

    def keys(self, name: str, this_device: str | None = None) -> AccountKeys:
        """The keys that act for the account `name` now; NoSuchAccount when there is none."""
        account = self.named(name)
        if account is None:
            raise acc.NoSuchAccount.of(f"named {name!r}")
        return keys_of(account, this_device)

    def _run(self, command: acc.AccountCommand, name: str, key_id: str) -> acc.Account:
        """Decide `command` on the records of the accounts named like `name` or holding `key_id`, append
        what it made (deciding again when another append came first), and the account it leaves."""
        for attempt in range(ATTEMPTS):
            head, records = self.log.matching(skeleton(name), key_id, looks_of(name))
            accounts = acc.fold(events_of(records))
            made = acc.decide(accounts, command)
            try:
                self.log.append(head, [_record(head + number, event) for number, event in enumerate(made, 1)])
            except ConcurrencyConflict:
                if attempt == ATTEMPTS - 1:
                    raise
                time.sleep(random.uniform(0, 0.005 * (attempt + 1)))  # out of step with the others retrying
                continue
            for event in made:
                accounts = acc.evolve(accounts, event)
            found = accounts.named(name)
            assert found is not None
            return found
        raise AssertionError("unreachable")

    def seat(self, creator: str, names: Sequence[str], bots: Sequence[str] = ()) -> list[str]:
        """The humans `names` of a new game as the accounts they are (their registered names);
        NoSuchAccount for a name no account has, AuthFailed when the creator is not among them,
        RuleViolation for one of its `bots` named as an account is (or looking like it): a name on a
        server is one account's, and his games, statistics and turns are told by it."""
        for bot in bots:
            account = self.named(bot)
            if account is not None:
                raise RuleViolation(f"a bot may not be called {bot!r}: that name is the account {account.name!r}'s "
                                    "on this server (or looks like it); give the bot a name no account has")
        seated: list[str] = []
        for name in names:
            account = self.named(name)
            if account is None:
                raise acc.NoSuchAccount(f"no account named {name!r} on this server: every human player here is "
                                        "a registered account (bots are not)")
            seated.append(account.name)
        if skeleton(creator) not in {skeleton(name) for name in seated}:
            raise AuthFailed(f"you ({creator}) must be one of the players of a game you create on this server",
                             player=creator)
        return seated

    def named(self, name: str) -> acc.Account | None:
        """The account whose name is `name` (or looks like it), with every key it has had, or None."""
        _, records = self.log.matching(skeleton(name), None, looks_of(name))
        return acc.fold(events_of(records)).named(name)

    def holding(self, key_id: str) -> AccountView | None:
        """The account for which the key `key_id` acts now (seen with that key), or None."""
        _, records = self.log.matching(None, key_id)
        account = acc.fold(events_of(records)).holding(key_id)
        return view_of(account, key_id) if account is not None else None

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember a signed request's nonce until it expires; False when it was seen already (a replay)."""
        return self.log.use_nonce(key_id, nonce, expires_at, now)


def _record(seq: int, event: acc.AnyAccountEvent) -> AccountRecord:
    return AccountRecord(seq=seq, account=event.name, skeleton=skeleton(event.name), key_id=event.key_id,
                         type=event.type, schema_version=event.schema_version, data=event.model_dump(mode="json"),
                         recorded_at=event.at)


