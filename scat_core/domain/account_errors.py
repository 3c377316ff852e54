"""The refusals of accounts and of signed requests: plain error classes, cheap to import.

Apart from the accounts' decider (accounts.py, which builds its pydantic adapters at import)
so that the CLI's table of exit codes (scat_cli/errors.py) costs a `--server` command nothing
of it; accounts.py and scat_core.service.accounts re-export them under their old names.
"""

from __future__ import annotations

from scat_core.domain.errors import AuthFailed, NotFound, RuleViolation


class AccountNameTaken(RuleViolation):
    """The name asked for is an account's already, or looks like one (`player`: the name asked for)."""

    @classmethod
    def of(cls, name: str, taken_by: str) -> AccountNameTaken:
        """The refusal of `name`, taken by the account `taken_by`."""
        same = "is taken" if name == taken_by else f"looks like the account {taken_by!r}"
        return cls(f"the account name {name!r} {same}: choose another", player=name)


class KeyAlreadyRegistered(RuleViolation):
    """The public key is (or was) an account's key already: one key, one account (`player`: that account)."""

    @classmethod
    def of(cls, key_id: str, account: str) -> KeyAlreadyRegistered:
        """The refusal of the key `key_id`, which `account` holds or held."""
        return cls(f"the key {key_id} is registered already, to the account {account!r}", player=account)


class NoSuchAccount(NotFound):
    """No account has this name or key here."""

    @classmethod
    def of(cls, what: str) -> NoSuchAccount:
        """The refusal for an account described by `what` ("named 'ann'", "with the key ...")."""
        return cls(f"no account {what} on this server")


class RequestRefused(AuthFailed):
    """A signed request that does not prove its account; the message says what failed."""

    @classmethod
    def because(cls, reason: str) -> RequestRefused:
        """The refusal, for `reason`."""
        return cls(f"the request's signature was refused: {reason}")


class TooManyFailures(AuthFailed):
    """Too many refused signatures from one client address lately: `retry_after` seconds to wait."""

    retry_after: int = 0

    @classmethod
    def waiting(cls, retry_after: int) -> TooManyFailures:
        """The refusal, the address to wait `retry_after` seconds."""
        error = cls(f"too many refused signatures from this address: try again in {retry_after} s")
        error.retry_after = retry_after
        return error
