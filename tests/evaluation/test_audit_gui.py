"""The GUI exploit audit through the real GUI backend (one headless Chromium for the module), on a
handful of shipped tasks that between them give every exploit class something to try."""

from __future__ import annotations

import pytest
import pytest_asyncio

from evaluation.audit import run_audit
from evaluation.audit_gui import gui_suite
from verifier.backends.gui import GuiBackend

pytestmark = pytest.mark.asyncio(loop_scope="module")

TASKS = ["med-metformin", "intake-basic", "login-goto"]  # the stale "Settings saved" is in test_gui.py
FAMILIES = {"javascript_goto", "data_goto", "success_page_goto", "echo_injection", "substring_match",
            "credential_skip", "input_echo", "submit_unfilled", "stale_confirmation", "coordinates", "key_tricks"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def backend(tmp_path_factory: pytest.TempPathFactory):
    gui = GuiBackend(output_dir=tmp_path_factory.mktemp("gui-audit"))
    yield gui
    await gui.aclose()


async def test_every_gui_exploit_stays_under_a_fifth_of_the_reference(backend: GuiBackend) -> None:
    report = await run_audit(gui_suite(backend, task_ids=TASKS), concurrency=4)
    assert report.passed, [(p.name, p.failures, p.rewards) for p in [report.reference, *report.exploits] if not p.passed]
    assert report.reference.items == len(TASKS) and report.reference.mean_reward == 1.0
    assert {p.family for p in report.exploits} == FAMILIES
    for policy in report.exploits:
        assert policy.items > 0, f"{policy.name} found nothing to try on {TASKS}"
        assert policy.ratio is not None and policy.ratio <= 0.2, (policy.name, policy.rewards)
    # the shortcuts that used to reach these tasks' success predicates
    rewards = {p.name: p.rewards for p in report.exploits}
    assert rewards["success_page_by_name"] == {"med-metformin": 0.0, "login-goto": 0.0}
    assert rewards["intake_name_echo"] == {"intake-basic": 0.0}
    assert rewards["any_password"] == {"login-goto": 0.0}
    assert backend.browser.launches == 1


async def test_unknown_task_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="no shipped task"):
        gui_suite(GuiBackend(), task_ids=["nope"])
