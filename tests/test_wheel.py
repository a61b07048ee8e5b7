"""The project works installed as a wheel, not only from the source tree: the wheel is built from a
copy of the sources, installed into a bare folder, and used from another directory with only that
folder on the path, reading every kind of shipped data (cases, rubric tasks, rule items, code,
search and GUI tasks, the GUI pages in Chromium, the train YAMLs, the web page) and running two
commands of the installed ``medverifier``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

CHECK = r'''
import asyncio, sys
from pathlib import Path

target = Path(sys.argv[1]).resolve()
import evaluation, patient_sim, policy, rubric_gen, serving, verifier
for module in (evaluation, patient_sim, policy, rubric_gen, serving, verifier):
    assert Path(module.__file__).resolve().is_relative_to(target), f"{module.__name__} from {module.__file__}"

from verifier.data import data_dir, data_path
assert data_dir() == target / "medverifier_data", data_dir()

from patient_sim.cases import find_case, project_cases
assert len(project_cases()) >= 40 and find_case("acs-stemi").disposition == "emergency"
from verifier.healthbench import load_healthbench
assert load_healthbench(data_dir() / "rubric_tasks" / "medverifier_rubric_tasks.jsonl")
from policy.rule_data import RULE_DATA_DIR, load_rule_items
assert load_rule_items(RULE_DATA_DIR / "train.jsonl") and load_rule_items(RULE_DATA_DIR / "heldout.jsonl")
from verifier.backends.code import load_code_tasks
from verifier.backends.search import load_search_tasks
from verifier.search_index import default_index
assert load_code_tasks() and load_search_tasks() and default_index().search("chest pain", k=3)
from policy.stage_config import STAGES, default_config_path, load_stage_config
for stage in STAGES:
    config = load_stage_config(default_config_path(stage))
    for file in [*config.data.train, *config.data.heldout]:
        assert data_path(file).is_file(), (stage, file, data_path(file))
from serving.app import STATIC_DIR
assert (STATIC_DIR / "index.html").is_file()

from verifier.backends.gui import GuiBackend, load_gui_tasks
from verifier.gui_env import PAGES_DIR

async def gui() -> None:
    backend = GuiBackend()
    try:
        record = next(r for r in load_gui_tasks() if r.task.id == "settings-language")
        result = await backend.verify(record.request())
    finally:
        await backend.aclose()
    assert result.reward == 1.0, result.meta
    assert str(result.meta["final_page"]).startswith(PAGES_DIR.as_uri()) and PAGES_DIR.is_relative_to(target)

asyncio.run(gui())
print("installed wheel: ok")
'''


def _copy_sources(dest: Path, packages: list[str]) -> None:
    """What a build reads: pyproject, README, the packages and data/ (no caches, no tests, no venv)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, dest / name)
    for top in sorted({p.split(".")[0] for p in packages} - {"medverifier_data"} | {"data"}):
        shutil.copytree(REPO / top, dest / top, ignore=ignore)


def test_the_installed_wheel_reads_all_shipped_data_from_another_directory(tmp_path: Path) -> None:
    if not os.access("/usr/bin/chromium", os.X_OK) and "MEDVERIFIER_CHROMIUM" not in os.environ:
        pytest.skip("Chromium is not installed (the check opens the GUI pages)")
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    src, dist, target, elsewhere = (tmp_path / d for d in ("src", "dist", "target", "elsewhere"))
    for folder in (src, dist, elsewhere):
        folder.mkdir()
    _copy_sources(src, setuptools["packages"])
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), str(src)],
                   check=True, capture_output=True, timeout=120)
    (wheel,) = dist.glob("medverifier-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    source_files = [p.relative_to(REPO).as_posix() for top in ("verifier", "patient_sim", "rubric_gen", "policy",
                                                                 "serving", "evaluation")
                    for p in (REPO / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts
                    and p.suffix in (".py", ".txt", ".html", ".yaml", ".md", ".js", ".css")]
    missing = sorted(set(source_files) - names)
    assert not missing, f"not in the wheel (add the package to [tool.setuptools] packages): {missing[:10]}"
    data_files = [p.relative_to(REPO / "data").as_posix() for p in (REPO / "data").rglob("*") if p.is_file()]
    missing = sorted(f for f in data_files if f"medverifier_data/{f}" not in names)
    assert len(data_files) >= 20 and not missing, f"data not in the wheel: {missing[:10]}"
    assert not any(n.startswith(("data/", "tests/")) for n in names)

    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("MEDVERIFIER_DATA_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)  # the source tree is not on the path (the editable finder comes last)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], cwd=elsewhere, env=env, capture_output=True, text=True,
                              timeout=180)

    checked = run("-c", CHECK, str(target))
    assert checked.returncode == 0 and "installed wheel: ok" in checked.stdout, checked.stderr[-3000:]
    cli = str(target / "bin" / "medverifier")
    rubric = run(cli, "rubric", "--case", "acs-stemi")
    assert rubric.returncode == 0 and "acs-stemi" in rubric.stdout, rubric.stderr[-2000:]
    audit = run(cli, "audit", "--domain", "search", "--json")
    assert audit.returncode == 0 and '"passed": true' in audit.stdout, audit.stderr[-2000:]
    # the override points everything at another copy of the data
    moved = tmp_path / "moved-data"
    shutil.copytree(target / "medverifier_data", moved)
    env["MEDVERIFIER_DATA_DIR"] = str(moved)
    overridden = run("-c", "from verifier.data import data_dir; from patient_sim.cases import PROJECT_CASES_DIR; "
                           "print(data_dir(), PROJECT_CASES_DIR)")
    assert overridden.stdout.split() == [str(moved), str(moved / "cases")], overridden.stderr[-2000:]
