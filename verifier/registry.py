"""The backend registry and the ``verify()`` facade.

A tiny dict keyed by domain: configuration chooses a backend by name, and an unknown name is an
error that lists the registered ones.
"""

from __future__ import annotations

from pydantic import TypeAdapter

from verifier.protocols import VerifierBackend
from verifier.types import VerifyRequest, VerifyResult

_request_adapter: TypeAdapter[VerifyRequest] = TypeAdapter(VerifyRequest)


class UnknownDomainError(KeyError):
    def __str__(self) -> str:  # KeyError's repr-quoting makes messages unreadable
        return str(self.args[0])


class Registry:
    def __init__(self) -> None:
        self._backends: dict[str, VerifierBackend] = {}

    def register(self, backend: VerifierBackend, *, replace: bool = False) -> None:
        if backend.domain in self._backends and not replace:
            raise ValueError(f"a backend for domain {backend.domain!r} is already registered")
        self._backends[backend.domain] = backend

    def get(self, domain: str) -> VerifierBackend:
        try:
            return self._backends[domain]
        except KeyError:
            known = ", ".join(sorted(self._backends)) or "none"
            raise UnknownDomainError(
                f"no verifier backend for domain {domain!r} (registered: {known})"
            ) from None

    def domains(self) -> list[str]:
        return sorted(self._backends)

    async def verify(self, request: VerifyRequest | dict) -> VerifyResult:
        parsed = _request_adapter.validate_python(request) if isinstance(request, dict) else request
        return await self.get(parsed.domain).verify(parsed)


def parse_request(data: dict | str | bytes) -> VerifyRequest:
    """Validate a verify request from a dict or JSON text (raises pydantic.ValidationError)."""
    if isinstance(data, str | bytes):
        return _request_adapter.validate_json(data)
    return _request_adapter.validate_python(data)


default_registry = Registry()


async def verify(request: VerifyRequest | dict, registry: Registry | None = None) -> VerifyResult:
    """Verify one request with the backend registered for its domain."""
    return await (registry or default_registry).verify(request)
