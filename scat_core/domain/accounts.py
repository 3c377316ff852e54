"""Accounts on a server as a pure Decider: an account is a name and the public keys it acts with.

`decide(accounts, command)` returns the events a command makes, or raises an error naming
what is wrong; `evolve(accounts, event)` and `fold(events)` rebuild the state. The state a
command is decided on holds the accounts that could clash with it (same-looking name, same
key): the store hands over those, and appends only if the log did not move meanwhile. A
name is validated as a player name (names.py); two accounts may not have look-alike names
(neither names.skeleton's nor any of names.looks_of's, Unicode's confusables: one name per look),
and one public key belongs to one account, ever (a key once replaced or revoked is not given
again). An account has one key per device of its owner: a key added (`AddKey`, by one of its
keys) acts for it until revoked (`RevokeKey`; never its last one) or until the operator's
rekey gives the account one new key in place of all of them (a user who lost every key).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from scat_core.domain.errors import (
    AccountNameTaken,
    BadInput,
    Hint,
    KeyAlreadyRegistered,
    NoSuchAccount,
    NotFound,
    RuleViolation,
)
from scat_core.domain.names import looks_of, name_problem, normalize_name, skeleton

_BASE64_KEY = re.compile(r"[A-Za-z0-9+/]{43}=")
#: A key's label (which device it is): up to 64 printable characters.
LABEL_MAX = 64
#: The most keys an account may hold at once (one per device).
KEYS_MAX = 20


# ---- commands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RegisterAccount:
    """Register `public_key` (base64 Ed25519) under `name`, at `at` (ISO 8601, the service's clock)."""

    name: str
    public_key: str
    at: str


@dataclass(frozen=True)
class RekeyAccount:
    """Give the account `name` the new public key `public_key` (its owner lost the old one)."""

    name: str
    public_key: str
    at: str


@dataclass(frozen=True)
class AddKey:
    """The account `name`, acting with its key `by` (a key id), adds `public_key` (another device's)."""

    name: str
    public_key: str
    label: str
    by: str
    at: str


@dataclass(frozen=True)
class RevokeKey:
    """The account `name`, acting with its key `by`, stops its key `key_id` (a lost device)."""

    name: str
    key_id: str
    by: str
    at: str


AccountCommand: TypeAlias = RegisterAccount | RekeyAccount | AddKey | RevokeKey


# ---- events -----------------------------------------------------------------------------


class _AccountEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AccountRegistered(_AccountEvent):
    """An account was registered: its name and the public key it acts with from then on."""

    type: Literal["AccountRegistered"] = "AccountRegistered"
    schema_version: Literal[1] = 1
    name: str
    public_key: str
    key_id: str
    at: str


class AccountRekeyed(_AccountEvent):
    """An account was given a new public key; what it signed before stays under the previous one."""

    type: Literal["AccountRekeyed"] = "AccountRekeyed"
    schema_version: Literal[1] = 1
    name: str
    public_key: str
    key_id: str
    previous_key_id: str
    at: str


class AccountKeyAdded(_AccountEvent):
    """An account added a key (another device of its owner), signed for by one of its keys (`by`)."""

    type: Literal["AccountKeyAdded"] = "AccountKeyAdded"
    schema_version: Literal[1] = 1
    name: str
    public_key: str
    key_id: str
    label: str
    by: str
    at: str


class AccountKeyRevoked(_AccountEvent):
    """An account stopped one of its keys; what that key signed before still verifies under it."""

    type: Literal["AccountKeyRevoked"] = "AccountKeyRevoked"
    schema_version: Literal[1] = 1
    name: str
    key_id: str
    by: str
    at: str


AnyAccountEvent: TypeAlias = AccountRegistered | AccountRekeyed | AccountKeyAdded | AccountKeyRevoked
AccountEvent: TypeAlias = Annotated[AnyAccountEvent, Field(discriminator="type")]
# cast: mypy takes the Annotated union for a type[...] argument in some import orders, not in others
ACCOUNT_EVENT: TypeAdapter[AnyAccountEvent] = TypeAdapter(cast(Any, AccountEvent))


# ---- state ------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPeriod:
    """One key an account has had: from when (`since`) and, once revoked or replaced, until when."""

    key_id: str
    public_key: str
    since: str
    until: str | None = None
    label: str = ""

    def held_at(self, at: str) -> bool:
        """Whether the key acted for its account at the recorded time `at`."""
        return self.since <= at and (self.until is None or at < self.until)


@dataclass(frozen=True)
class Account:
    """An account as its events left it: its name, when registered, and every key it has had, in
    the order given (those without `until` act for it now)."""

    name: str
    registered_at: str
    keys: tuple[KeyPeriod, ...]

    @property
    def active(self) -> tuple[KeyPeriod, ...]:
        """The keys that act for the account now, the first given first."""
        return tuple(period for period in self.keys if period.until is None)

    @property
    def key(self) -> KeyPeriod:
        """The key the account was last given that acts for it now."""
        return self.active[-1]

    def period(self, key_id: str) -> KeyPeriod | None:
        """The account's key `key_id`, active or not, if it ever had it."""
        return next((period for period in self.keys if period.key_id == key_id), None)

    def acting(self, key_id: str) -> KeyPeriod | None:
        """The account's key `key_id` if it acts for it now."""
        period = self.period(key_id)
        return period if period is not None and period.until is None else None


@dataclass(frozen=True)
class Accounts:
    """The accounts known to a decision: by the skeleton of their names (names.skeleton, and their
    look, names.look_of), and who ever held each key id."""

    by_skeleton: dict[str, Account] = field(default_factory=dict)
    key_owners: dict[str, str] = field(default_factory=dict)
    by_look: dict[str, Account] = field(default_factory=dict)

    def named(self, name: str) -> Account | None:
        """The account whose name is `name` (ignoring case) or else looks like it, if known."""
        found = self.by_skeleton.get(skeleton(name))
        if found is not None and found.name.casefold() == normalize_name(name).casefold():
            return found
        alike = [self.by_look[look] for look in looks_of(name) if look in self.by_look]
        same = [account for account in alike if account.name.casefold() == normalize_name(name).casefold()]
        if same:
            return same[0]
        return found if found is not None else next(iter(alike), None)

    def holding(self, key_id: str) -> Account | None:
        """The account for which the key `key_id` acts now, if known."""
        owner = self.key_owners.get(key_id)
        account = self.named(owner) if owner is not None else None
        return account if account is not None and account.acting(key_id) is not None else None


# ---- the decider ------------------------------------------------------------------------


def key_id_of(public_key: str) -> str:
    """The key id of a base64 Ed25519 public key: 16 hex digits of the SHA-256 of its 32 raw bytes."""
    return hashlib.sha256(_raw(public_key)).hexdigest()[:16]


def _raw(public_key: str) -> bytes:
    if not isinstance(public_key, str) or not _BASE64_KEY.fullmatch(public_key):
        raise BadInput(f"{str(public_key)[:60]!r} is not a public key (44 base64 characters)")
    try:
        return base64.b64decode(public_key, validate=True)
    except binascii.Error:
        raise BadInput(f"{public_key[:60]!r} is not a public key (44 base64 characters)") from None


def account_name(name: str) -> str:
    """`name` as an account is registered under (normalised); BadInput when it is no usable name."""
    normal = normalize_name(name) if isinstance(name, str) else ""
    problem = name_problem(normal)
    if problem is not None:
        raise BadInput(problem.replace("player name", "account name"))
    return normal


def key_label(label: str) -> str:
    """A key's label as recorded (trimmed); BadInput when it is too long or has control characters."""
    text = label.strip() if isinstance(label, str) else ""
    if len(text) > LABEL_MAX or not text.isprintable():
        raise BadInput(f"a key's label is up to {LABEL_MAX} printable characters (which device it is)")
    return text


def decide(accounts: Accounts, command: AccountCommand) -> list[AnyAccountEvent]:
    """The events `command` makes given `accounts`; raises the error that refuses it."""
    if isinstance(command, RegisterAccount):
        key_id = key_id_of(command.public_key)
        name = account_name(command.name)
        _unheld(accounts, key_id)  # first: a key registered again under its own name, or a look-alike, is that
        existing = accounts.named(name)
        if existing is not None:
            raise AccountNameTaken.of(name, existing.name)
        return [AccountRegistered(name=name, public_key=command.public_key, key_id=key_id, at=command.at)]
    account = accounts.named(command.name)
    if account is None:
        raise NoSuchAccount.of(f"named {command.name!r}")
    if isinstance(command, RekeyAccount):
        key_id = key_id_of(command.public_key)
        _unheld(accounts, key_id)
        return [AccountRekeyed(name=account.name, public_key=command.public_key, key_id=key_id,
                               previous_key_id=account.key.key_id, at=command.at)]
    if account.acting(command.by) is None:
        raise NoSuchAccount.of(f"named {account.name!r} acting with the key {command.by}")
    if isinstance(command, AddKey):
        key_id = key_id_of(command.public_key)
        label = key_label(command.label)
        _unheld(accounts, key_id)
        if len(account.active) >= KEYS_MAX:
            raise RuleViolation(f"the account {account.name!r} has {KEYS_MAX} keys already, the most it may hold",
                                hint=Hint.REVOKE_KEY)
        return [AccountKeyAdded(name=account.name, public_key=command.public_key, key_id=key_id, label=label,
                                by=command.by, at=command.at)]
    period = account.period(command.key_id)
    if period is None:
        raise NotFound(f"the account {account.name!r} has no key {command.key_id!r}", hint=Hint.LIST_KEYS)
    if period.until is not None:
        raise RuleViolation(f"the key {command.key_id} of {account.name!r} was stopped already, at {period.until}")
    if len(account.active) == 1:
        raise RuleViolation(f"the key {command.key_id} is the last key of {account.name!r}, without which the "
                            "account could never act again", hint=Hint.ADD_ANOTHER_KEY)
    return [AccountKeyRevoked(name=account.name, key_id=command.key_id, by=command.by, at=command.at)]


def _unheld(accounts: Accounts, key_id: str) -> None:
    """KeyAlreadyRegistered when some account has or had the key `key_id`."""
    if key_id in accounts.key_owners:
        raise KeyAlreadyRegistered.of(key_id, accounts.key_owners[key_id])


def evolve(accounts: Accounts, event: AnyAccountEvent) -> Accounts:
    """The accounts after `event`."""
    if isinstance(event, AccountRegistered):
        account = Account(name=event.name, registered_at=event.at,
                          keys=(KeyPeriod(event.key_id, event.public_key, event.at),))
        return _with(accounts, account, event.key_id)
    known = accounts.named(event.name)
    if known is None:  # an event of an account outside this state: a key it names is taken all the same
        return replace(accounts, key_owners={**accounts.key_owners, event.key_id: event.name})
    if isinstance(event, AccountRekeyed):  # the operator's: one new key in place of every key it had
        ended = tuple(replace(period, until=period.until or event.at) for period in known.keys)
        keys = (*ended, KeyPeriod(event.key_id, event.public_key, event.at))
    elif isinstance(event, AccountKeyAdded):
        keys = (*known.keys, KeyPeriod(event.key_id, event.public_key, event.at, label=event.label))
    else:
        keys = tuple(replace(period, until=event.at) if period.key_id == event.key_id and period.until is None
                     else period for period in known.keys)
    return _with(accounts, replace(known, keys=keys), event.key_id)


def _with(accounts: Accounts, account: Account, key_id: str) -> Accounts:
    return Accounts(by_skeleton={**accounts.by_skeleton, skeleton(account.name): account},
                    key_owners={**accounts.key_owners, key_id: account.name},
                    by_look={**accounts.by_look, **dict.fromkeys(looks_of(account.name), account)})


def fold(events: Iterable[AnyAccountEvent]) -> Accounts:
    """The accounts the events make, from none."""
    accounts = Accounts()
    for event in events:
        accounts = evolve(accounts, event)
    return accounts
