"""Security headers on every response, pages, documents, files and errors alike: the content
security policy allows only our own scripts (and the player's WebAssembly), styles and fonts
(the pages, the recording player and Swagger UI load nothing from elsewhere and run no inline
script), images from us or inline (`data:`, the server-drawn plots), and no framing; browsers
do not guess content types."""

from __future__ import annotations

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        # the recording player's terminal emulator is WebAssembly: compiling it is allowed,
        # evaluating JavaScript from strings is not
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


async def secured(message: Message, scope: Scope) -> None:
    """litestar's `before_send` hook: the headers go on every response's start."""
    if message["type"] == "http.response.start":
        headers = MutableScopeHeaders.from_message(message)
        for name, value in SECURITY_HEADERS.items():
            headers[name] = value
