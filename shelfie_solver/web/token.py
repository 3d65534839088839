"""The access token of ``shelfie-solve serve`` on a non-loopback host (docs/serve.md, "Safety").

On loopback (127.0.0.0/8, ``::1``, ``localhost``) only this machine can connect, so no token is
asked. On any other host the server makes one random token (:func:`new_token`, from
:mod:`secrets`), prints it in the URL and as a QR code, and refuses every request that does not
carry it; the comparison is constant-time (:func:`token_matches`, :func:`hmac.compare_digest`), so
the time of a refusal tells nothing about how much of a guess was right.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

#: Random bytes of a token (192 bits; 32 URL-safe characters).
TOKEN_BYTES = 24

#: Longest token text compared (a longer one is refused without comparing).
MAX_TOKEN_CHARS = 256


def new_token() -> str:
    """A fresh random token: :data:`TOKEN_BYTES` bytes from :func:`secrets.token_urlsafe`."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine only: 127.0.0.0/8, ``::1``
    or the name ``localhost``. Any other name or address (``0.0.0.0`` listens everywhere) is not."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def token_matches(given: str | None, expected: str) -> bool:
    """Whether the token ``given`` (``None``: none was sent) is ``expected``, compared in constant
    time over the bytes (:func:`hmac.compare_digest`); a token over :data:`MAX_TOKEN_CHARS`
    characters is refused at once."""
    if given is None or len(given) > MAX_TOKEN_CHARS:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))
