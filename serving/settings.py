"""Service settings (pydantic-settings): environment variables prefixed ``MEDVERIFIER_``.

API keys come from ``MEDVERIFIER_API_KEYS`` (comma-separated, or a JSON list) or, better, as
pre-computed SHA-256 hex digests in ``MEDVERIFIER_API_KEY_HASHES`` so that no plain key sits in the
environment. Plain keys are hashed when the app starts and never kept.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def medverifier_home() -> Path:
    return Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()


def hash_key(key: str) -> str:
    """The SHA-256 hex digest under which an API key is stored and compared."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _split(value: object) -> object:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            import json

            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEDVERIFIER_", extra="ignore")

    # --- model
    model: str = Field("embedded", description="`embedded`, a checkpoint folder, or the served model's name.")
    base_url: str | None = Field(None, description="An OpenAI-compatible server to use instead of a local model.")
    upstream_api_key: str | None = Field(None, description="API key for --base-url.")
    max_batch_size: int = Field(16, ge=1, le=256)

    # --- security
    api_keys: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Plain API keys.")
    api_key_hashes: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="SHA-256 hex digests of API keys."
    )
    max_body_bytes: int = Field(256 * 1024, ge=1024, description="Largest accepted request body.")

    # --- storage
    db_path: Path | None = Field(None, description="SQLite file for consultations (default under MEDVERIFIER_HOME).")

    # --- load
    queue_size: int = Field(64, ge=1, description="Most model-backed requests admitted at once; more get 503.")
    request_timeout_s: float = Field(120.0, gt=0, description="Per-request generation limit; over it gets 504.")
    retry_after_s: int = Field(2, ge=1)

    # --- generation defaults
    default_max_tokens: int = Field(256, ge=1)
    max_tokens_limit: int = Field(1024, ge=1)
    consultation_temperature: float = Field(0.7, ge=0.0)
    history_chars: int = Field(6000, ge=200, description="Most recent dialogue kept in the doctor's prompt.")

    @field_validator("api_keys", "api_key_hashes", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return _split(value)

    @field_validator("api_key_hashes")
    @classmethod
    def _hex_digests(cls, value: list[str]) -> list[str]:
        for index, digest in enumerate(value):
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest.lower()):
                raise ValueError(f"api_key_hashes[{index}]: expected a 64-character SHA-256 hex digest")
        return [d.lower() for d in value]

    def resolved_db_path(self) -> Path:
        return self.db_path or medverifier_home() / "serving" / "consultations.sqlite"

    def key_hashes(self) -> list[str]:
        """Every accepted key as a SHA-256 hex digest (plain keys hashed here)."""
        return sorted({*self.api_key_hashes, *(hash_key(k) for k in self.api_keys)})
