"""The server's check of signed requests (httpsig.py): a FastAPI dependency over the account service.

A request without `Signature-Input` is refused (401) but for OPEN_PATHS, unless the server
also serves per-game tokens (`scat serve --tokens`: it then passes unchanged, its game token
authenticates it); a signed one must prove its account, or it is refused (401) before its endpoint runs:
a request signed for another server (its `server` parameter names another key than this
server's), an unknown key, a timestamp more than WINDOW seconds off the server's clock, a
body or a path that is not what was signed, a bad signature, a nonce seen already (but by
the first try of the same read, when the server asks it again: lost_reads.py). The account it
proves is `request.state.account` (an AccountView; None for an unsigned request). A move's nonce
is left to its command (`request.state.nonce`, scat_core/service/playing.py), which spends it
with its events (on SQLite one commit a move, not two) and refuses a replay itself (401 too).
Checks run cheapest first: a refusal costs at most a SHA-256, an Ed25519 verification and,
for a key not looked up lately, one indexed read (a wrong game token costs a SHA-256, or a 16 MiB
scrypt in a game made before tokens were kept as their SHA-256).
Each process keeps the accounts' public keys it looked up for KEY_SECONDS (an unknown key
for UNKNOWN_SECONDS): a key an account was given in another process (a rekey) takes effect
here within KEY_SECONDS, an account registered there within UNKNOWN_SECONDS.
Refusals (RequestRefused, here or a move's replay) are counted per client address by the
error handler (routes/errors.py `count_refusal`): past FAILURES_ALLOWED within FAILURE_WINDOW
seconds, that address's signed requests get 429 with Retry-After until the oldest counted
refusal is that old. So are wrong game tokens (WrongToken: in an old game each cost a scrypt), and that
address's requests that carry tokens (a bearer, or those of a `wait --any`) wait alike, signed or not;
a bearer this process has not proven for its game counts while its request is answered
(`token_checks`), so that a burst sent at once meets the limit too.
The counts are this process's (each server process limits on its own); nonces are rows of the
database (request_nonces), so every process refuses a replay.
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, MutableMapping
from typing import Any

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from scat_cli.server.lost_reads import OWN_NONCES
from scat_cli.wire import httpsig
from scat_core.domain.accounts import key_id_of
from scat_core.domain.errors import (
    AuthFailed,
    BadInput,
    NoSuchAccount,
    RequestRefused,
    TooManyFailures,
    TooManyRegistrations,
    WrongServer,
)
from scat_core.records import credentials
from scat_core.records.credentials import RequestNonce
from scat_core.service.accounts import AccountService, AccountView

#: How far (seconds) a request's `created` may be from the server's clock, either way.
WINDOW = 300
#: Refused signatures an address may send within FAILURE_WINDOW seconds before it waits.
FAILURES_ALLOWED = 10
FAILURE_WINDOW = 60
#: Registrations one client address may attempt within REGISTRATION_WINDOW seconds (`scat serve
#: --max-registrations-per-address`): enough for a family or a classroom behind one address.
REGISTRATIONS_PER_ADDRESS = 30
REGISTRATION_WINDOW = 3600
#: How long a process trusts the public key it read for a key id (an unknown key id: shorter).
KEY_SECONDS, UNKNOWN_SECONDS = 5.0, 1.0
KEYS_KEPT = 10_000
#: What a server answers without an account (unless it also serves per-game tokens: `scat serve --tokens`).
OPEN_PATHS = frozenset({"/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/key"})
#: The paths whose signer need not be an account yet: registering proves the key in the body.
REGISTER_PATH = "/accounts"
WHO_AM_I_PATH = "/accounts/me"


class FailureLimiter:
    """Refused signatures per client address, over a sliding window (this process's memory)."""

    def __init__(self, allowed: int = FAILURES_ALLOWED, window: float = FAILURE_WINDOW) -> None:
        self.allowed, self.window = allowed, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, address: str, now: float) -> int | None:
        """Seconds `address` must wait before its next signed request is looked at, or None."""
        with self._lock:
            failures = self._failures.get(address)
            if failures is None:
                return None
            while failures and failures[0] <= now - self.window:
                failures.popleft()
            if not failures:
                del self._failures[address]
                return None
            if len(failures) < self.allowed:
                return None
            return max(1, int(failures[0] + self.window - now + 0.999))

    def reserve(self, address: str, now: float) -> None:
        """Count one attempt from `address` now, to be given back (`release`) unless it fails: so
        that attempts in flight at once count too, not only those that failed already."""
        self.failed(address, now)

    def release(self, address: str, now: float) -> None:
        """Give back the attempt `reserve` counted at `now` (gone already if it aged out)."""
        with self._lock:
            failures = self._failures.get(address)
            if failures is None:
                return
            try:
                failures.remove(now)
            except ValueError:
                return
            if not failures:
                del self._failures[address]

    def failed(self, address: str, now: float, count: int = 1) -> None:
        """Count `count` refusals (a signature, wrong tokens) from `address`."""
        with self._lock:
            if len(self._failures) > 100_000:  # bounded memory under a flood of addresses
                self._failures.clear()
            self._failures.setdefault(address, deque()).extend([now] * count)


class KeyNotCached(Exception):
    """The account of a key id must be read from the database (not in the event loop)."""


class KeyCache:
    """The accounts looked up by key id lately (None: no account has it), each for a few seconds."""

    def __init__(self, accounts: AccountService) -> None:
        self.accounts = accounts
        self._seen: dict[str, tuple[float, AccountView | None]] = {}
        self._lock = threading.Lock()

    def holding(self, key_id: str, now: float, cached_only: bool = False) -> AccountView | None:
        """The account whose current key has `key_id`, read again once its entry has aged out
        (`cached_only`: KeyNotCached instead of the read)."""
        with self._lock:
            entry = self._seen.get(key_id)
        if entry is not None and now < entry[0]:
            return entry[1]
        if cached_only:
            raise KeyNotCached(key_id)
        account = self.accounts.holding(key_id)
        with self._lock:
            if len(self._seen) >= KEYS_KEPT:
                self._seen.clear()
            self._seen[key_id] = (now + (KEY_SECONDS if account is not None else UNKNOWN_SECONDS), account)
        return account

    def forget(self, key_id: str) -> None:
        """Read the key's account afresh next time (it was registered or re-keyed here)."""
        with self._lock:
            self._seen.pop(key_id, None)


class RequestVerifier:
    """The dependency that verifies signed requests against the accounts of `accounts`."""

    def __init__(self, accounts: AccountService, *, window: int = WINDOW, limiter: FailureLimiter | None = None,
                 clock: Callable[[], float] = time.time, tokens: bool = False,
                 spent_by_the_command: frozenset[str] = frozenset(), server_key_id: str = "",
                 registrations_per_address: int = REGISTRATIONS_PER_ADDRESS) -> None:
        self.accounts, self.window, self.clock = accounts, window, clock
        #: This server's key id: a request signed for another server's is refused (httpsig.py).
        self.server_key_id = server_key_id
        #: The routes (path templates) whose command spends the request's nonce in its own
        #: transaction (service/playing.py): their nonce is left in `request.state.nonce`.
        self.spent_by_the_command = spent_by_the_command
        #: Unsigned requests are served too (games protected by per-game tokens, as before accounts).
        self.tokens = tokens
        self.limiter = limiter or FailureLimiter()
        #: Wrong game tokens per client address (a scrypt each in an old game), counted by the error handler.
        self.wrong_tokens = FailureLimiter()
        self.keys = KeyCache(accounts)
        #: Registrations per client address within the last hour (attempts: refused ones too).
        self.registrations = FailureLimiter(registrations_per_address, REGISTRATION_WINDOW)

    async def __call__(self, request: Request) -> None:
        """Verify the request if it is signed; its account in `request.state.account`."""
        request.state.account = None
        request.state.signed_key_id = None
        request.state.nonce = None
        header = request.headers.get("signature-input")
        address = request.client.host if request.client else "-"
        now = self.clock()
        registering = request.method == "POST" and request.url.path == REGISTER_PATH
        if registering:  # every attempt counts, refused or not
            self.registering(address, now)
        if header is None:
            # an unsigned registration is refused by its route, which says it must be signed
            if not self.tokens and request.url.path not in OPEN_PATHS and not registering:
                raise AuthFailed("this server serves accounts only: register one with `scat account register "
                                 "NAME`, and your scat signs every request with your key")
            return
        wait = self.limiter.retry_after(address, now)
        if wait is not None:
            raise TooManyFailures.waiting(wait)
        body = await request.body()
        route = getattr(request.scope.get("route"), "path", None)
        later = route in self.spent_by_the_command and "authorization" not in request.headers  # not a token's
        if later:  # a refusal is counted against the address by the error handler (routes/errors.py)
            request.state.account, request.state.nonce = await self._checked_soon(request, body, now)
        else:
            request.state.account = await run_in_threadpool(self.verified, request.scope, request.method,
                                                            dict(request.headers), body, now)
        request.state.signed_key_id = (request.state.account.key_id if request.state.account is not None
                                       else self._registering_key(body))

    def registering(self, address: str, now: float) -> None:
        """Count a registration from `address`; TooManyRegistrations when it made its hour's
        (`registrations`: signed requests of accounts it has are not held back by it)."""
        wait = self.registrations.retry_after(address, now)
        if wait is not None:
            raise TooManyRegistrations.waiting(wait, self.registrations.allowed)
        self.registrations.failed(address, now)

    async def token_checks(self, request: Request) -> AsyncIterator[None]:
        """Around a request with a game token (a bearer; the app's dependency, scope "function"): its
        address must not have sent too many wrong tokens lately (429), and while it is answered a
        token this process has not proven for its game counts as an attempt of that address, given
        back once answered: a burst of wrong tokens sent at once meets the limit too, not only the
        wrong tokens found already (each a scrypt in an old game)."""
        header = request.headers.get("authorization")
        if header is None:
            yield
            return
        address, now = request.client.host if request.client else "-", self.clock()
        self.hold_back_tokens(address, now)
        game_id, token = request.path_params.get("game_id"), header.partition(" ")[2].strip()
        if isinstance(game_id, str) and token and credentials.proven_in(game_id, token):
            yield
            return
        self.wrong_tokens.reserve(address, now)
        try:
            yield
        finally:
            self.wrong_tokens.release(address, now)

    def hold_back_tokens(self, address: str, now: float) -> None:
        """TooManyFailures when `address` sent too many wrong game tokens lately (before a request's
        tokens are looked at: a bearer here, those of a `wait --any` by its route)."""
        wait = self.wrong_tokens.retry_after(address, now)
        if wait is not None:
            raise TooManyFailures.waiting(wait, "tokens")

    async def _checked_soon(self, request: Request, body: bytes, now: float) -> tuple[AccountView | None,
                                                                                      RequestNonce]:
        """`checked` in the event loop when the signer's key is cached (a digest and one Ed25519
        verification, no I/O: cheaper than a trip to a worker thread and back), else in a worker."""
        headers = dict(request.headers)
        try:
            return self.checked(request.scope, request.method, headers, body, now, cached_only=True)
        except KeyNotCached:
            return await run_in_threadpool(self.checked, request.scope, request.method, headers, body, now)

    def verified(self, scope: MutableMapping[str, Any], method: str, headers: dict[str, str], body: bytes,
                 now: float) -> AccountView | None:
        """The account a signed request proves (None: a registration, signed by the key it registers),
        its nonce spent (RequestRefused if it was already: a replay)."""
        account, nonce = self.checked(scope, method, headers, body, now)
        own = scope.get(OWN_NONCES)  # a read tried again (lost_reads.py): the first try may have spent it
        tried_before = own is not None and (nonce.key_id, nonce.nonce) in own
        if own is not None:
            own.add((nonce.key_id, nonce.nonce))
        if not self.accounts.use_nonce(nonce.key_id, nonce.nonce, nonce.expires_at, nonce.now) and not tried_before:
            raise RequestRefused.replayed()
        return account

    def checked(self, scope: MutableMapping[str, Any], method: str, headers: dict[str, str], body: bytes,
                now: float, cached_only: bool = False) -> tuple[AccountView | None, RequestNonce]:
        """`verified` but for the nonce, given back unspent (the request's command spends it);
        `cached_only`: KeyNotCached rather than read the signer's account from the database."""
        try:
            parts = httpsig.parse(headers["signature-input"], headers.get("signature"), headers.get("content-digest"))
        except httpsig.SignatureProblem as problem:
            raise RequestRefused.because(str(problem)) from None
        if parts.server != self.server_key_id:
            raise WrongServer.of(parts.server, self.server_key_id)
        if abs(now - parts.created) > self.window:
            raise RequestRefused.because(f"its timestamp is more than {self.window} s off the server's clock "
                                 "(stale, or the client's clock is wrong)")
        path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        registering = method == "POST" and scope["path"] == REGISTER_PATH
        account = None if registering else self.keys.holding(parts.key_id, now, cached_only)
        if registering:
            public_key = self._registering_public_key(body)
            if key_id_of(public_key) != parts.key_id:
                raise RequestRefused.because("a registration must be signed by the key it registers")
        elif account is None:
            if scope["path"] == WHO_AM_I_PATH:  # no account yet: not a forgery, an answer
                raise NoSuchAccount(f"no account with the key {parts.key_id} on this server: register one "
                                    "(`scat account register NAME`) or, if you have one there on another device, "
                                    "add this device's key from that one (`scat account add-key PUBLIC_KEY`, the "
                                    "key `scat key show` prints here)")
            raise RequestRefused.because(f"no account has the key {parts.key_id} on this server (never added, "
                                         "or revoked: `scat account keys` on another of your devices lists yours)")
        else:
            public_key = account.public_key
        try:
            httpsig.verify(parts, public_key, method, path, query, body)
        except httpsig.SignatureProblem as problem:
            raise RequestRefused.because(str(problem)) from None
        return account, RequestNonce(parts.key_id, parts.nonce, parts.created + self.window, int(now))

    @staticmethod
    def _registering_public_key(body: bytes) -> str:
        """The public key a registration's body names (BadInput when it names none)."""
        import json

        try:
            value = json.loads(body).get("public_key")
        except (ValueError, AttributeError):
            value = None
        if not isinstance(value, str):
            raise BadInput("a registration needs a JSON body with the public_key")
        return value

    def _registering_key(self, body: bytes) -> str:
        return key_id_of(self._registering_public_key(body))
