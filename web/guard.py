"""Who may change the app's state: the app's own pages (and the origins the user lists).

A browser sends ``Origin`` with every websocket handshake and every cross-site POST; a page
of another site (or of another port on this machine) is refused, so it cannot open a room,
join, or hold a socket in a visitor's name.  Programs that are not browsers (a publishing
``match``, ``curl``) send no ``Origin`` and are let through; what they may do is bounded by
:mod:`daihinmin.web.limits` and, for publishing, by the app's token.  The allowed origins are
fixed when the app starts, from the address it serves on (never from the request's ``Host``
header, which a DNS-rebinding page controls).
"""

from __future__ import annotations

import ipaddress
import secrets

from starlette.requests import ClientDisconnect, HTTPConnection, Request

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class BodyError(ValueError):
    """A request body that cannot be had: too long, or the client went away mid-way."""


class BodyTooLargeError(BodyError):
    """A request body longer than allowed (stopped while it was read)."""


def own_origins(host: str, port: int, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The origins of the app's own pages served on ``host:port``, and ``extra``."""
    names = {f"[{host}]" if ":" in host else host}
    try:
        if ipaddress.ip_address(host).is_loopback:
            names.update(LOOPBACK_NAMES)
    except ValueError:
        if host == "localhost":
            names.update(LOOPBACK_NAMES)
    return frozenset({f"http://{n}:{port}" for n in names} | {o.rstrip("/") for o in extra})


def origin_allowed(conn: HTTPConnection, allowed: frozenset[str]) -> bool:
    """No ``Origin`` (not a browser), or one of ``allowed``."""
    origin = conn.headers.get("origin")
    return origin is None or origin.rstrip("/") in allowed


def token_matches(given: str | None, token: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


async def read_body(request: Request, limit: int) -> bytes:
    """The body, read chunk by chunk and refused as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError(f"the request is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLargeError(f"the request is larger than {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise BodyError("the client went away before the end of its request") from None
    return b"".join(chunks)


__all__ = ["BodyError", "BodyTooLargeError", "origin_allowed", "own_origins", "read_body",
           "token_matches"]
