"""Service settings (pydantic-settings): environment variables prefixed ``MEDVERIFIER_``.

The judge and the rubric model are models of their own (``MEDVERIFIER_JUDGE_*``,
``MEDVERIFIER_RUBRIC_*``), independent of the served policy: a reward service grades with a judge
chosen for grading, not with whatever policy it happens to serve. Unset, there is none: hybrid
grading uses the rule checks and leaves judge-only items unscored.

API keys come from ``MEDVERIFIER_API_KEYS`` (comma-separated, or a JSON list) or, better, as
pre-computed SHA-256 hex digests in ``MEDVERIFIER_API_KEY_HASHES`` so that no plain key sits in the
environment. Plain keys are hashed when the app starts and never kept. ``MEDVERIFIER_KEY_LABELS`` gives
keys human-readable labels (``{"dr-lee": "<key or its digest>", ...}``, or ``dr-lee=KEY,dr-ng=KEY``): the
name a clinician shares a consultation with, and the reviewer named in exported reviews.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from policy.clients import ClientSpec
from policy.engine.device import DEVICES, DTYPES, check_device, check_dtype


def medverifier_home() -> Path:
    return Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()


def hash_key(key: str) -> str:
    """The SHA-256 hex digest under which an API key is stored and compared."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


_LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")


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
    device: str | None = Field(
        None, description=f"Where local models (the policy, a local judge or rubric model) run: {', '.join(DEVICES)}. "
        "Unset: the CPU.")
    dtype: str | None = Field(
        None, description=f"Local models' precision: {', '.join(DTYPES)}. Unset: float32.")

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
    key_labels: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict, description="Human-readable labels of API keys: label -> the key or its SHA-256 "
        "digest (a JSON object, or label=key pairs separated by commas). Unlabelled keys are key-<8 hex digits>.",
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

    @field_validator("key_labels", mode="before")
    @classmethod
    def _label_pairs(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().startswith("{"):
            pairs = [part.partition("=") for part in value.split(",") if part.strip()]
            return {label.strip(): key.strip() for label, _, key in pairs}
        if isinstance(value, str):
            import json

            return json.loads(value)
        return value

    @field_validator("key_labels")
    @classmethod
    def _label_shape(cls, value: dict[str, str]) -> dict[str, str]:
        for label, key in value.items():
            if not _LABEL_RE.match(label):
                raise ValueError(f"key_labels: label {label!r} must be 1-40 letters, digits, '.', '_' or '-'")
            if not key:
                raise ValueError(f"key_labels: label {label!r} has no key")
        return value

    @field_validator("api_key_hashes")
    @classmethod
    def _hex_digests(cls, value: list[str]) -> list[str]:
        for index, digest in enumerate(value):
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest.lower()):
                raise ValueError(f"api_key_hashes[{index}]: expected a 64-character SHA-256 hex digest")
        return [d.lower() for d in value]

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str | None) -> str | None:
        return check_device(value)

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str | None) -> str | None:
        return check_dtype(value)

    @model_validator(mode="after")
    def _model_for_each_url(self) -> Settings:
        for role in ("judge", "rubric"):
            if getattr(self, f"{role}_base_url") and not getattr(self, f"{role}_model"):
                raise ValueError(f"{role}_base_url is set but {role}_model is not: name the model to call there")
        return self

    def _spec(self, model: str, base_url: str | None, api_key: str | None) -> ClientSpec:
        return ClientSpec(model=model, base_url=base_url, api_key=SecretStr(api_key) if api_key else None,
                          device=self.device, dtype=self.dtype, max_batch_size=self.max_batch_size,
                          timeout_s=self.request_timeout_s)

    def policy(self) -> ClientSpec:
        """The served policy's model."""
        return self._spec(self.model, self.base_url, self.upstream_api_key)

    def judge(self) -> ClientSpec | None:
        """The judge's model, or None when no judge is configured."""
        if not self.judge_model:
            return None
        return self._spec(self.judge_model, self.judge_base_url, self.judge_api_key)

    def rubric(self) -> ClientSpec | None:
        """The rubric model, or None when only case-grounded rubrics are generated."""
        if not self.rubric_model:
            return None
        return self._spec(self.rubric_model, self.rubric_base_url, self.rubric_api_key)

    def resolved_db_path(self) -> Path:
        return self.db_path or medverifier_home() / "serving" / "consultations.sqlite"

    def labels_by_digest(self) -> dict[str, str]:
        """Each labelled key's SHA-256 digest -> its label (a value that is a 64-hex digest is taken as one)."""
        labels: dict[str, str] = {}
        for label, key in self.key_labels.items():
            digest = key.lower() if re.fullmatch(r"[0-9a-fA-F]{64}", key) else hash_key(key)
            if digest in labels:
                raise ValueError(f"key_labels: {labels[digest]!r} and {label!r} label the same key")
            labels[digest] = label
        unknown = sorted(label for digest, label in labels.items() if digest not in set(self.key_hashes()))
        if unknown:
            raise ValueError(f"key_labels: {', '.join(unknown)} label no configured API key")
        return labels

    def key_hashes(self) -> list[str]:
        """Every accepted key as a SHA-256 hex digest (plain keys hashed here)."""
        return sorted({*self.api_key_hashes, *(hash_key(k) for k in self.api_keys)})
