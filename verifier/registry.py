"""The backend registry, and the backends that need nothing injected.

A tiny dict keyed by domain: configuration chooses a backend by name, and an unknown name is an
error that lists the registered ones. There is no process-wide registry: whoever verifies builds one
(``policy.graders.build_registry()`` registers the medical backend and ``default_backends()``) and
calls ``registry.verify(request)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import TypeAdapter

from verifier.backends.code import CodeBackend
from verifier.backends.gui import GuiBackend
from verifier.backends.search import SearchBackend
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


def default_backends(*, gui_allowed_urls: Sequence[str] = ()) -> list[VerifierBackend]:
    """The code, search and GUI backends with their default settings (GUI starts Chromium lazily and
    loads the project's pages only, plus ``gui_allowed_urls``). The medical backend needs a rubric
    generator and a grader, so the composition root builds it."""
    return [CodeBackend(), SearchBackend(), GuiBackend(allowed_urls=list(gui_allowed_urls) or None)]
