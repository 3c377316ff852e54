"""The account service: register, re-key and find the accounts of a server (event-sourced).

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
from scat_core.domain.errors import AuthFailed
from scat_core.domain.move_time import recorded_text
from scat_core.domain.names import skeleton
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.account_ports import AccountLog, AccountRecord
from scat_core.service.move_times import Clock, system_clock

#: How many times a use case decides again when another one appended first.
ATTEMPTS = 8  # the account log has one head: strangers registering at once take turns (with a jittered pause)


class AccountView(BaseModel):
    """An account as a server tells it: its name, current key, and when it was registered."""

    model_config = ConfigDict(frozen=True)

    name: str
    key_id: str
    public_key: str
    registered_at: str
    keys: int = 1  # how many keys it has had


def view_of(account: acc.Account) -> AccountView:
    """The account's view (public: names and public keys only)."""
    return AccountView(name=account.name, key_id=account.key.key_id, public_key=account.key.public_key,
                       registered_at=account.registered_at, keys=len(account.keys))


def events_of(records: Sequence[AccountRecord]) -> list[acc.AccountRegistered | acc.AccountRekeyed]:
    """The domain events of stored records."""
    return [acc.ACCOUNT_EVENT.validate_python(record.data) for record in records]


class AccountService:
    """The accounts of one server, over an AccountLog adapter."""

    def __init__(self, log: AccountLog, clock: Clock = system_clock) -> None:
        self.log, self.clock = log, clock

    def register(self, name: str, public_key: str) -> AccountView:
        """Register `public_key` under `name`; AccountNameTaken, KeyAlreadyRegistered or BadInput refuse it."""
        normal = acc.account_name(name)
        return self._run(acc.RegisterAccount(normal, public_key, recorded_text(self.clock())), normal)

    def rekey(self, name: str, public_key: str) -> AccountView:
        """Give the account `name` a new public key; NoSuchAccount or KeyAlreadyRegistered refuse it."""
        return self._run(acc.RekeyAccount(name, public_key, recorded_text(self.clock())), name)

    def _run(self, command: acc.AccountCommand, name: str) -> AccountView:
        key_id = acc.key_id_of(command.public_key)
        for attempt in range(ATTEMPTS):
            head, records = self.log.matching(skeleton(name), key_id)
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
            return view_of(found)
        raise AssertionError("unreachable")

    def seat(self, creator: str, names: Sequence[str]) -> list[str]:
        """The humans `names` of a new game as the accounts they are (their registered names);
        NoSuchAccount for a name no account has, AuthFailed when the creator is not among them."""
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
        _, records = self.log.matching(skeleton(name), None)
        return acc.fold(events_of(records)).named(name)

    def holding(self, key_id: str) -> AccountView | None:
        """The account whose current key has `key_id`, or None."""
        _, records = self.log.matching(None, key_id)
        account = acc.fold(events_of(records)).holding(key_id)
        return view_of(account) if account is not None else None

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember a signed request's nonce until it expires; False when it was seen already (a replay)."""
        return self.log.use_nonce(key_id, nonce, expires_at, now)


def _record(seq: int, event: acc.AccountRegistered | acc.AccountRekeyed) -> AccountRecord:
    return AccountRecord(seq=seq, account=event.name, skeleton=skeleton(event.name), key_id=event.key_id,
                         type=event.type, schema_version=event.schema_version, data=event.model_dump(mode="json"),
                         recorded_at=event.at)


