"""HTTP Message Signatures (RFC 9421) as scat uses them: Ed25519 over method, path, query and body
digest, and the server the request is meant for.

The client signs every request to a server where it has an account; the server verifies it
with the account's registered public key. One signature, labelled `scat`::

    Content-Digest: sha-256=:<base64 SHA-256 of the body (RFC 9530)>:
    Signature-Input: scat=("@method" "@path" "@query" "content-digest");created=1733130000;
        keyid="<16 hex digits>";nonce="<32 hex digits>";server="<16 hex digits>";alg="ed25519"
    Signature: scat=:<base64 Ed25519 signature of the signature base>:

`server` is the key id of the server the request is meant for (the key it signs its games
with, `GET /key`): a signature parameter of scat's own, so it is in the signature base's
`@signature-params` line and signed with the rest. A server refuses a request signed for
another key than its own, so a request captured on its way to one server is refused by any
other, even one where the same key is an account.

The signature base is RFC 9421's (section 2.5): one line per covered component,
`"name": value`, then `"@signature-params": <the Signature-Input value after "scat=">`, joined
by newlines. `@path` is the request target's path as sent (percent-encoded), `@query` its
query with the leading `?` (`?` alone when there is none). Only the standard library is
imported here; `cryptography` when a key signs or verifies.
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

import base64
import binascii
import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

LABEL = "scat"
COMPONENTS = ("@method", "@path", "@query", "content-digest")
ALGORITHM = "ed25519"
_INPUT = re.compile(
    r'scat=\("@method" "@path" "@query" "content-digest"\)'
    r';created=(?P<created>[0-9]{1,12});keyid="(?P<keyid>[0-9a-f]{16})"'
    r';nonce="(?P<nonce>[0-9A-Za-z_-]{16,64})";server="(?P<server>[0-9a-f]{16})";alg="ed25519"')
_SIGNATURE = re.compile(r"scat=:(?P<signature>[A-Za-z0-9+/]{86}==):")
_DIGEST = re.compile(r"sha-256=:(?P<digest>[A-Za-z0-9+/]{43}=):")


class SignatureProblem(Exception):
    """Why a request's signature does not hold, in a few words (`str()`)."""


@dataclass(frozen=True)
class SignedParts:
    """What a request's signature headers say: the key, time and nonce, the digest and the signature."""

    key_id: str
    created: int
    nonce: str
    server: str  # the key id of the server it is meant for
    params: str  # the Signature-Input value after "scat=", as signed
    digest: str  # the Content-Digest header as sent
    signature: bytes


def content_digest(body: bytes) -> str:
    """The Content-Digest header of `body` (RFC 9530, sha-256)."""
    return f"sha-256=:{base64.b64encode(hashlib.sha256(body).digest()).decode('ascii')}:"


def signature_base(method: str, path: str, query: str, digest: str, params: str) -> bytes:
    """The bytes signed (RFC 9421 section 2.5) for these component values and signature parameters."""
    lines = [f'"@method": {method.upper()}', f'"@path": {path}', f'"@query": ?{query}',
             f'"content-digest": {digest}', f'"@signature-params": {params}']
    return "\n".join(lines).encode("utf-8")


def sign(key: Ed25519PrivateKey, key_id: str, method: str, target: str, body: bytes, created: int,
         server: str) -> dict[str, str]:
    """The headers that sign a request for `target` (path and query as sent) with `key`, meant for
    the server whose key id is `server`."""
    parts = urlsplit(target)
    digest = content_digest(body)
    nonce = secrets.token_hex(16)
    params = (f'("@method" "@path" "@query" "content-digest");created={created};keyid="{key_id}"'
              f';nonce="{nonce}";server="{server}";alg="{ALGORITHM}"')
    signature = key.sign(signature_base(method, parts.path or "/", parts.query, digest, params))
    return {"content-digest": digest, "signature-input": f"{LABEL}={params}",
            "signature": f"{LABEL}=:{base64.b64encode(signature).decode('ascii')}:"}


def parse(signature_input: str, signature: str | None, digest: str | None) -> SignedParts:
    """The parts of a request's signature headers; SignatureProblem when they are not scat's form."""
    found = _INPUT.fullmatch(signature_input.strip())
    if found is None:
        raise SignatureProblem('Signature-Input is not scat=("@method" "@path" "@query" "content-digest")'
                               ';created;keyid;nonce;server;alg="ed25519" (a scat older than this server?)')
    signed = _SIGNATURE.fullmatch((signature or "").strip())
    if signed is None:
        raise SignatureProblem("the Signature header is missing or not scat=:<base64 Ed25519 signature>:")
    if digest is None or _DIGEST.fullmatch(digest.strip()) is None:
        raise SignatureProblem("the Content-Digest header is missing or not sha-256=:<base64>:")
    try:
        raw = base64.b64decode(signed["signature"], validate=True)
    except binascii.Error:
        raise SignatureProblem("the signature is not base64") from None
    return SignedParts(key_id=found["keyid"], created=int(found["created"]), nonce=found["nonce"],
                       server=found["server"],
                       params=signature_input.strip()[len(LABEL) + 1:], digest=digest.strip(), signature=raw)


def verify(parts: SignedParts, public_key: str, method: str, path: str, query: str, body: bytes) -> None:
    """Check the body against its digest and the signature under `public_key`; SignatureProblem if either fails."""
    if not secrets.compare_digest(content_digest(body), parts.digest):
        raise SignatureProblem("the body does not match its Content-Digest (altered in flight?)")
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(parts.signature, signature_base(method, path, query, parts.digest, parts.params))
    except (InvalidSignature, ValueError, binascii.Error):
        raise SignatureProblem("the signature does not verify under the account's key "
                               "(wrong key, or the request was altered)") from None
