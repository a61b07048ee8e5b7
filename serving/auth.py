"""API-key authentication: ``Authorization: Bearer KEY`` checked against stored SHA-256 digests.

Only digests are kept in memory; a presented key is hashed and compared with every stored digest
with ``hmac.compare_digest`` (no early exit, so timing does not reveal which digest was close).
A tenant is identified by a prefix of its key's digest: sessions are owned by that id. Its label
(``Settings.key_labels``, else ``key-`` and the id's first 8 digits) is how people name it.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass

from fastapi import Request

from serving.routes_common import ApiError
from serving.settings import hash_key

logger = logging.getLogger(__name__)

_TENANT_CHARS = 16


@dataclass(frozen=True)
class Tenant:
    id: str  # the first 16 hex digits of the key's SHA-256
    label: str = ""


def default_label(tenant_id: str) -> str:
    return f"key-{tenant_id[:8]}"


class KeyStore:
    def __init__(self, digests: list[str], labels: dict[str, str] | None = None) -> None:
        self._digests = [bytes.fromhex(d) for d in digests]
        labels = labels or {}
        self._labels = {d[:_TENANT_CHARS]: labels.get(d, default_label(d)) for d in digests}
        self._by_label = {label: tenant for tenant, label in self._labels.items()}

    def __len__(self) -> int:
        return len(self._digests)

    def label(self, tenant_id: str) -> str:
        return self._labels.get(tenant_id, default_label(tenant_id))

    def tenant_by_label(self, label: str) -> str | None:
        """The tenant id of the key labelled ``label`` (None when no configured key has it)."""
        return self._by_label.get(label)

    def authenticate(self, key: str) -> Tenant | None:
        presented = bytes.fromhex(hash_key(key))
        match: bytes | None = None
        for digest in self._digests:
            if hmac.compare_digest(presented, digest):
                match = digest
        if match is None:
            return None
        tenant_id = match.hex()[:_TENANT_CHARS]
        return Tenant(id=tenant_id, label=self.label(tenant_id))


def _unauthorized(message: str) -> ApiError:
    return ApiError(
        401,
        message,
        type="authentication_error",
        code="invalid_api_key",
        headers={"WWW-Authenticate": "Bearer"},
    )


def bearer_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


async def require_tenant(request: Request) -> Tenant:
    """FastAPI dependency: the caller's tenant, or 401."""
    key = bearer_key(request)
    if key is None:
        raise _unauthorized("missing API key: send the header 'Authorization: Bearer YOUR_KEY'")
    keys: KeyStore = request.app.state.keys
    tenant = keys.authenticate(key)
    if tenant is None:
        raise _unauthorized("invalid API key")
    request.state.tenant = tenant
    return tenant
