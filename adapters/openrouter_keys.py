"""Per-run model keys through OpenRouter's key-management API (`/api/v1/keys`), or anything
speaking it (the stand-in): create with a spending limit and an expiry, list, read, delete.

Every call is bounded by a timeout and fails closed (`KeyProviderError`), never falling back to
anything else. The provisioning token and a key's secret never appear in a log, an error or a
repr: the secret is returned once, wrapped, by `create` (the API shows it only then).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

from domain.errors import SetupError

DEFAULT_URL = "https://openrouter.ai/api/v1"
PAGE = 100


class KeyProviderError(SetupError):
    """The key API refused, failed or did not answer in time."""


class Secret:
    """A value that must not be shown: its repr and str are masked."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(****)"

    __str__ = __repr__


@dataclass(frozen=True)
class KeyInfo:
    hash: str
    name: str
    limit: float | None
    usage: float | None
    disabled: bool
    expires_at: datetime | None


@dataclass(frozen=True)
class CreatedKey:
    info: KeyInfo
    secret: Secret = field(repr=False)


def utc_z(moment: datetime) -> str:
    """ISO 8601 in UTC with `Z`, as the API requires ("other timezones will be rejected")."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _info(data: dict[str, object]) -> KeyInfo:
    expires = data.get("expires_at")

    def number(name: str) -> float | None:
        value = data.get(name)
        return float(value) if isinstance(value, int | float) else None

    return KeyInfo(
        hash=str(data["hash"]),
        name=str(data.get("name") or ""),
        limit=number("limit"),
        usage=number("usage"),
        disabled=bool(data.get("disabled")),
        expires_at=datetime.fromisoformat(str(expires)) if expires else None,
    )


class OpenRouterKeys:
    """The key-management API at `base_url` (ending in `/api/v1`), with a management token."""

    def __init__(self, base_url: str, token: Secret, timeout: float = 20) -> None:
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token.reveal()}"},
            timeout=httpx.Timeout(timeout),
        )

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        try:
            response = self._client.request(method, path, **kwargs)  # type: ignore[arg-type]
        except httpx.TimeoutException:
            raise KeyProviderError(f"key API {method} {path}: no answer in time") from None
        except httpx.HTTPError as e:
            raise KeyProviderError(f"key API {method} {path}: {type(e).__name__}") from None
        return response

    @staticmethod
    def _fail(response: httpx.Response, what: str) -> KeyProviderError:
        return KeyProviderError(f"key API {what}: HTTP {response.status_code}")

    def create(self, name: str, limit_usd: float, expires_at: datetime) -> CreatedKey:
        """A new key with a spending limit (USD, no reset) and an expiry."""
        body = {
            "name": name,
            "limit": limit_usd,
            "limit_reset": None,
            "expires_at": utc_z(expires_at),
        }
        response = self._call("POST", "/keys", json=body)
        if response.status_code not in (200, 201):
            raise self._fail(response, "create")
        try:
            document = response.json()
            return CreatedKey(info=_info(document["data"]), secret=Secret(str(document["key"])))
        except (ValueError, KeyError, TypeError):
            raise KeyProviderError("key API create: an answer without the key") from None

    def get(self, key_hash: str) -> KeyInfo | None:
        response = self._call("GET", f"/keys/{key_hash}")
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise self._fail(response, "get")
        return _info(response.json()["data"])

    def delete(self, key_hash: str) -> bool:
        """Delete a key; False when it was already gone (which is what was wanted)."""
        response = self._call("DELETE", f"/keys/{key_hash}")
        if response.status_code == 404:
            return False
        if response.status_code != 200:
            raise self._fail(response, "delete")
        return True

    def list(self) -> Iterator[KeyInfo]:
        """Every key, disabled ones too, a page of 100 at a time."""
        offset = 0
        while True:
            response = self._call(
                "GET", "/keys", params={"offset": offset, "include_disabled": "true"}
            )
            if response.status_code != 200:
                raise self._fail(response, "list")
            page = response.json()["data"]
            yield from map(_info, page)
            if len(page) < PAGE:
                return
            offset += len(page)
