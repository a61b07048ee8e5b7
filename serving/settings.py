"""Service settings (pydantic-settings): environment variables prefixed ``MEDVERIFIER_``.

The judge and the rubric model are models of their own (``MEDVERIFIER_JUDGE_*``,
``MEDVERIFIER_RUBRIC_*``), independent of the served policy: a reward service grades with a judge
chosen for grading, not with whatever policy it happens to serve. Unset, there is none: hybrid
grading uses the rule checks and leaves judge-only items unscored.

API keys come from ``MEDVERIFIER_API_KEYS`` (comma-separated, or a JSON list) or, better, as
pre-computed SHA-256 hex digests in ``MEDVERIFIER_API_KEY_HASHES`` so that no plain key sits in the
environment. Plain keys are hashed when the app starts and never kept.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, field_validator, model_validator
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


class ModelSpec(BaseModel):
    """A model the server calls besides the policy: a local one (``embedded``, a checkpoint folder) or
    ``model`` at the OpenAI-compatible ``base_url``."""

    model: str
    base_url: str | None = None
    api_key: str | None = None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEDVERIFIER_", extra="ignore")

    # --- model
    model: str = Field("embedded", description="`embedded`, a checkpoint folder, or the served model's name.")
    base_url: str | None = Field(None, description="An OpenAI-compatible server to use instead of a local model.")
    upstream_api_key: str | None = Field(None, description="API key for --base-url.")
    max_batch_size: int = Field(16, ge=1, le=256)

    # --- the verifier's models (none by default: grading is by rule checks only)
    judge_model: str | None = Field(
        None, description="The judge for rubric items without a rule check: `embedded`, a checkpoint folder, "
        "or the model's name at judge_base_url. Unset: no judge."
    )
    judge_base_url: str | None = Field(None, description="An OpenAI-compatible server for the judge.")
    judge_api_key: str | None = Field(None, description="API key for judge_base_url.")
    rubric_model: str | None = Field(
        None, description="The model behind the LLM rubric generator (`generator: llm`, and consultation "
        "tasks without a rubric): like judge_model. Unset: case-grounded rubrics only."
    )
    rubric_base_url: str | None = Field(None, description="An OpenAI-compatible server for the rubric model.")
    rubric_api_key: str | None = Field(None, description="API key for rubric_base_url.")
    verify_batch_max: int = Field(256, ge=1, le=10_000, description="Most requests in one POST /v1/verify/batch.")
    verify_concurrency: int = Field(
        8, ge=1, le=256, description="Requests of one batch verified at once (each holds an admission slot)."
    )
    gui_allowed_urls: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="URL prefixes the GUI verifier's browser may load besides the project's "
        "pages (comma-separated or a JSON list). Empty: the project's pages only.",
    )

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

    @field_validator("api_keys", "api_key_hashes", "gui_allowed_urls", mode="before")
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

    @model_validator(mode="after")
    def _model_for_each_url(self) -> Settings:
        for role in ("judge", "rubric"):
            if getattr(self, f"{role}_base_url") and not getattr(self, f"{role}_model"):
                raise ValueError(f"{role}_base_url is set but {role}_model is not: name the model to call there")
        return self

    def judge(self) -> ModelSpec | None:
        """The judge's model, or None when no judge is configured."""
        if not self.judge_model:
            return None
        return ModelSpec(model=self.judge_model, base_url=self.judge_base_url, api_key=self.judge_api_key)

    def rubric(self) -> ModelSpec | None:
        """The rubric model, or None when only case-grounded rubrics are generated."""
        if not self.rubric_model:
            return None
        return ModelSpec(model=self.rubric_model, base_url=self.rubric_base_url, api_key=self.rubric_api_key)

    def resolved_db_path(self) -> Path:
        return self.db_path or medverifier_home() / "serving" / "consultations.sqlite"

    def key_hashes(self) -> list[str]:
        """Every accepted key as a SHA-256 hex digest (plain keys hashed here)."""
        return sorted({*self.api_key_hashes, *(hash_key(k) for k in self.api_keys)})
