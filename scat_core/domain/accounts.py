"""Accounts on a server as a pure Decider: an account is a name and the public key it acts with.

`decide(accounts, command)` returns the events a command makes, or raises an error naming
what is wrong; `evolve(accounts, event)` and `fold(events)` rebuild the state. The state a
command is decided on holds the accounts that could clash with it (same-looking name, same
key): the store hands over those, and appends only if the log did not move meanwhile. A
name is validated as a player name (names.py); two accounts may not have look-alike names,
and one public key belongs to one account, ever (a key once replaced is not given again).
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

from scat_core.domain.errors import AccountNameTaken, BadInput, KeyAlreadyRegistered, NoSuchAccount
from scat_core.domain.names import name_problem, normalize_name, skeleton

_BASE64_KEY = re.compile(r"[A-Za-z0-9+/]{43}=")


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


AccountCommand: TypeAlias = RegisterAccount | RekeyAccount


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


AccountEvent: TypeAlias = Annotated[AccountRegistered | AccountRekeyed, Field(discriminator="type")]
# cast: mypy takes the Annotated union for a type[...] argument in some import orders, not in others
ACCOUNT_EVENT: TypeAdapter[AccountRegistered | AccountRekeyed] = TypeAdapter(cast(Any, AccountEvent))


# ---- state ------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPeriod:
    """One key an account has had, and from when."""

    key_id: str
    public_key: str
    since: str


@dataclass(frozen=True)
class Account:
    """An account as its events left it: its name, when registered, and its keys, the current one last."""

    name: str
    registered_at: str
    keys: tuple[KeyPeriod, ...]

    @property
    def key(self) -> KeyPeriod:
        """The key the account acts with now."""
        return self.keys[-1]


@dataclass(frozen=True)
class Accounts:
    """The accounts known to a decision: by the skeleton of their names, and who ever held each key id."""

    by_skeleton: dict[str, Account] = field(default_factory=dict)
    key_owners: dict[str, str] = field(default_factory=dict)

    def named(self, name: str) -> Account | None:
        """The account whose name is `name` (or looks like it), if known."""
        return self.by_skeleton.get(skeleton(name))

    def holding(self, key_id: str) -> Account | None:
        """The account whose current key has `key_id`, if known."""
        owner = self.key_owners.get(key_id)
        account = self.named(owner) if owner is not None else None
        return account if account is not None and account.key.key_id == key_id else None


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


def decide(accounts: Accounts, command: AccountCommand) -> list[AccountRegistered | AccountRekeyed]:
    """The events `command` makes given `accounts`; raises the error that refuses it."""
    key_id = key_id_of(command.public_key)
    if isinstance(command, RegisterAccount):
        name = account_name(command.name)
        existing = accounts.named(name)
        if existing is not None:
            raise AccountNameTaken.of(name, existing.name)
        if key_id in accounts.key_owners:
            raise KeyAlreadyRegistered.of(key_id, accounts.key_owners[key_id])
        return [AccountRegistered(name=name, public_key=command.public_key, key_id=key_id, at=command.at)]
    account = accounts.named(command.name)
    if account is None:
        raise NoSuchAccount.of(f"named {command.name!r}")
    if key_id in accounts.key_owners:
        raise KeyAlreadyRegistered.of(key_id, accounts.key_owners[key_id])
    return [AccountRekeyed(name=account.name, public_key=command.public_key, key_id=key_id,
                           previous_key_id=account.key.key_id, at=command.at)]


def evolve(accounts: Accounts, event: AccountRegistered | AccountRekeyed) -> Accounts:
    """The accounts after `event`."""
    period = KeyPeriod(event.key_id, event.public_key, event.at)
    if isinstance(event, AccountRegistered):
        account = Account(name=event.name, registered_at=event.at, keys=(period,))
    else:
        known = accounts.named(event.name)
        if known is None:  # a rekey of an account outside this state: its key is taken all the same
            return replace(accounts, key_owners={**accounts.key_owners, event.key_id: event.name})
        account = replace(known, keys=(*known.keys, period))
    return Accounts(by_skeleton={**accounts.by_skeleton, skeleton(event.name): account},
                    key_owners={**accounts.key_owners, event.key_id: event.name})


def fold(events: Iterable[AccountRegistered | AccountRekeyed]) -> Accounts:
    """The accounts the events make, from none."""
    accounts = Accounts()
    for event in events:
        accounts = evolve(accounts, event)
    return accounts
