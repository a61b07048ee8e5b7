"""HealthBench's own grader template, taken from the maintained ``inspect_evals`` package (MIT).

HealthBench numbers are only comparable with published ones when the judge reads the same prompt as
openai/simple-evals' ``healthbench_eval.py``. Rather than retype it, the template is read from
``inspect_evals.healthbench.scorer.GRADER_TEMPLATE`` (a copy of simple-evals' constant) and checked
against the SHA-256 recorded here: a package that changed the template fails loudly instead of
quietly producing numbers graded by another prompt.

The constant is read from the module's source without executing it (importing the scorer pulls in
``inspect_ai``: about 2.4 s and 100 MB per process, in every Ray worker); if the assignment ever takes
a shape the reader does not know, the module is imported instead. Either way the hash decides.

The package is the optional extra ``healthbench``; without it ``load_healthbench_template()`` raises
``GraderTemplateUnavailable`` with the command to install it.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import logging
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

logger = logging.getLogger(__name__)

PACKAGE = "inspect-evals"
MODULE = "inspect_evals.healthbench.scorer"
CONSTANT = "GRADER_TEMPLATE"
# SHA-256 of the template's UTF-8 text as inspect-evals 0.26.0 ships it (identical to simple-evals').
HEALTHBENCH_TEMPLATE_SHA256 = "2adffd51fd259554ebcd036ad1072d4aa2b7ce3aec2bbffe36271f911632ed3c"
RECORDED_FROM = "inspect-evals 0.26.0"
# simple-evals' grader sampler sends this system message (``OPENAI_SYSTEM_MESSAGE_API``) before the
# prompt; inspect_evals' scorer does the same (``judge_system_message``).
HEALTHBENCH_SYSTEM_MESSAGE = "You are a helpful assistant."
INSTALL_HINT = (
    "install the optional 'healthbench' extra: pip install 'medverifier[healthbench]' -c constraints.txt "
    "(in a checkout: pip install -e '.[healthbench]' -c constraints.txt, or make setup)"
)


class GraderTemplateError(ValueError):
    """HealthBench's grader template cannot be used; the message says why and what to do."""


class GraderTemplateUnavailable(GraderTemplateError):
    """The package that ships the template is not installed."""


class GraderTemplateMismatch(GraderTemplateError):
    """The installed package ships a template other than the recorded one."""


class LoadedTemplate(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    sha256: str
    package_version: str
    source: str  # "inspect_evals.healthbench.scorer.GRADER_TEMPLATE (inspect-evals 0.26.0)"


def template_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _package_dir() -> Path:
    try:
        spec = importlib.util.find_spec("inspect_evals")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise GraderTemplateUnavailable(f"HealthBench's grader template comes from {PACKAGE}, which is not "
                                        f"installed: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0])


def _static_constant(path: Path) -> str | None:
    """``CONSTANT`` as the module would evaluate it, when it is a string literal (optionally ``.strip()``ped)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == CONSTANT
                                                     for t in node.targets)):
            continue
        value, strip = node.value, False
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "strip"
                and not value.args and not value.keywords):
            value, strip = value.func.value, True
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value.strip() if strip else value.value
        return None
    return None


def _imported_constant() -> str:
    try:
        module = importlib.import_module(MODULE)
    except ImportError as exc:
        raise GraderTemplateUnavailable(f"cannot import {MODULE}: {exc}; {INSTALL_HINT}") from exc
    text = getattr(module, CONSTANT, None)
    if not isinstance(text, str):
        raise GraderTemplateMismatch(f"{MODULE} has no string {CONSTANT}: the package changed; "
                                     f"pin {RECORDED_FROM} (constraints.txt)")
    return text


@lru_cache(maxsize=1)
def load_healthbench_template() -> LoadedTemplate:
    """HealthBench's grader template from the installed package, verified against the recorded hash."""
    package_dir = _package_dir()
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    text = _static_constant(package_dir / "healthbench" / "scorer.py")
    if text is None:
        logger.info("%s.%s is not a plain string literal; importing the module", MODULE, CONSTANT)
        text = _imported_constant()
    digest = template_sha256(text)
    if digest != HEALTHBENCH_TEMPLATE_SHA256:
        raise GraderTemplateMismatch(
            f"{MODULE}.{CONSTANT} in {PACKAGE} {version} has SHA-256 {digest}, not the recorded "
            f"{HEALTHBENCH_TEMPLATE_SHA256} ({RECORDED_FROM}): the package changed HealthBench's grader template. "
            f"Pin {RECORDED_FROM} (constraints.txt), or check the new template against openai/simple-evals and "
            f"record its hash in verifier/healthbench_template.py"
        )
    return LoadedTemplate(text=text, sha256=digest, package_version=version,
                          source=f"{MODULE}.{CONSTANT} ({PACKAGE} {version})")
