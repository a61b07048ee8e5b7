"""The GUI backend and environment in real headless Chromium (Debian's, through Playwright)."""

from __future__ import annotations

import asyncio
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_asyncio

from verifier.backends.gui import GuiBackend, GuiTaskRecord, load_gui_tasks
from verifier.gui_env import PAGES_DIR, Browser, GuiEnv, GuiError, resolve_goto, resolve_url
from verifier.registry import Registry
from verifier.types import GuiAction, GuiPredicate, GuiTask, GuiVerifyRequest

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def backend(tmp_path_factory: pytest.TempPathFactory):
    gui = GuiBackend(output_dir=tmp_path_factory.mktemp("gui-shots"))
    yield gui
    await gui.aclose()


async def test_every_shipped_task_correct_scores_one_wrong_scores_less(backend: GuiBackend) -> None:
    records = load_gui_tasks()
    assert len(records) >= 20 and len({r.task.id for r in records}) == len(records)
    good = await asyncio.gather(*(backend.verify(r.request()) for r in records))
    bad = await asyncio.gather(*(backend.verify(r.request(wrong=True)) for r in records))
    for record, g, b in zip(records, good, bad, strict=True):
        assert g.reward == 1.0, (record.task.id, g.meta, [c.explanation for c in g.criteria])
        assert g.meta["steps_used"] == len(record.trajectory) and g.meta["failed_actions"] == 0
        assert "screenshot" not in g.meta
        assert b.reward < 1.0, record.task.id
        assert Path(str(b.meta["screenshot"])).stat().st_size > 1000  # a real PNG of the final page
    assert backend.browser.launches == 1  # one Chromium for all 46 verifications


async def test_failed_actions_and_step_limit_are_reported(backend: GuiBackend) -> None:
    task = GuiTask(id="t", instruction="type a reason", start_page="appointment.html", max_steps=2,
                   success=[GuiPredicate(kind="field_value", selector="#reason", value="cough")])
    actions = [GuiAction(action="click", selector="#does-not-exist"), GuiAction(action="type", selector="#reason", text="cough")]
    request = GuiVerifyRequest(task=task, trajectory=actions, options={"action_timeout_ms": 300})
    result = await backend.verify(request)
    assert result.reward == 1.0 and result.meta["failed_actions"] == 1 and "#does-not-exist" in str(result.meta["action_errors"])
    too_long = request.model_copy(update={"trajectory": [*actions, GuiAction(action="wait", ms=10)]})
    over = await backend.verify(too_long)
    assert over.reward == 0.0 and over.meta["over_max_steps"] is True


async def test_environment_gives_accessibility_tree_and_screenshot(tmp_path: Path) -> None:
    task = next(r for r in load_gui_tasks() if r.task.id == "settings-language")
    env = GuiEnv(task.task, screenshot_dir=tmp_path)
    try:
        first = await env.reset()
        assert 'combobox "Language"' in first.tree and first.title == "Account settings" and not first.done
        assert first.screenshot_path and Path(first.screenshot_path).is_file()
        obs = await env.step(GuiAction(action="select", selector="#language", value="es"))
        assert not obs.done and obs.last_error is None
        obs = await env.step(GuiAction(action="click", selector="#save-settings"))
        assert obs.done and "Settings saved" in obs.tree and obs.step == 2
        bad = await env.step(GuiAction(action="select", selector="#language"))
        assert bad.last_error and "needs 'value'" in bad.last_error
    finally:
        await env.close()


async def test_only_local_pages_can_be_loaded(tmp_path: Path) -> None:
    assert resolve_url("index.html?user=x").startswith("file://") and resolve_url("index.html?user=x").endswith("?user=x")
    assert resolve_url("http://127.0.0.1:8000/a.html") == "http://127.0.0.1:8000/a.html"
    for bad in ["https://example.com/", "../../README.md", "missing.html", "javascript:alert(1)", str(tmp_path.as_uri())]:
        with pytest.raises(GuiError):
            resolve_url(bad)


async def test_pages_served_over_local_http_through_the_registry(backend: GuiBackend) -> None:
    handler = partial(SimpleHTTPRequestHandler, directory=str(PAGES_DIR))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        registry = Registry()
        registry.register(backend)
        request = {
            "domain": "gui",
            "task": {"id": "http-login", "instruction": "sign in", "start_page": f"{base}/login.html",
                     "success": [{"kind": "page", "value": "index.html"}, {"kind": "visible_text", "value": "Welcome, zoe"}]},
            "trajectory": [{"action": "type", "selector": "#username", "text": "zoe"},
                           {"action": "type", "selector": "#password", "text": "abcdef"},
                           {"action": "click", "selector": "#login-button"}],
        }
        assert (await registry.verify(request)).reward == 1.0
        request["start_page"] = "https://example.com/"
        request["task"]["start_page"] = "https://example.com/"
        refused = await registry.verify(request)
        assert refused.reward == 0.0 and "127.0.0.1" in str(refused.meta["error"])
    finally:
        server.shutdown()
        server.server_close()


async def test_browser_is_started_lazily_and_closed() -> None:
    browser = Browser()
    assert browser.launches == 0
    context, page = await browser.acquire()
    await browser.release(context, page)
    again, _ = await browser.acquire()
    assert again is context and browser.launches == 1  # the context came back from the pool
    await browser.aclose()


# --------------------------------------------------------------------------- rules against gaming
def _task(task_id: str) -> GuiTask:
    return next(r.task for r in load_gui_tasks() if r.task.id == task_id)


def _actions(*specs: dict) -> list[GuiAction]:
    return [GuiAction(**spec) for spec in specs]


async def test_goto_opens_only_a_page_of_the_site_by_name() -> None:
    assert resolve_goto("login.html") == (PAGES_DIR / "login.html").resolve().as_uri()
    refused = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<p>x</p>",
               (PAGES_DIR / "order_done.html").as_uri(), "order_done.html?medication=metformin", "index.html#user=ann",
               "./login.html", "../../README.md", "http://127.0.0.1:8000/login.html", "about:blank", "style.css",
               "missing.html"]
    for ref in refused:
        with pytest.raises(GuiError, match="refused"):
            resolve_goto(ref)
    # the start page keeps its wider rules: a query, a local server
    assert resolve_url("index.html?user=x").endswith("?user=x")


async def test_goto_tricks_are_failed_actions_and_earn_nothing(backend: GuiBackend) -> None:
    task = _task("med-metformin")
    forged = ["order_done.html?medication=metformin&quantity=2&pharmacy=station",
              f"{(PAGES_DIR / 'order_done.html').as_uri()}?medication=metformin&quantity=2&pharmacy=station",
              "javascript:location.href='order_done.html?medication=metformin&quantity=2&pharmacy=station'"]
    for url in forged:
        request = GuiVerifyRequest(task=task, trajectory=_actions({"action": "goto", "url": url}),
                                   options={"screenshot_on_failure": False})
        result = await backend.verify(request)
        assert result.reward == 0.0 and result.meta["failed_actions"] == 1, url
        assert "refused: only a page of this site" in str(result.meta["action_errors"]), url
    bare = GuiVerifyRequest(task=task, trajectory=_actions({"action": "goto", "url": "order_done.html"}),
                            options={"screenshot_on_failure": False})
    result = await backend.verify(bare)  # the page predicate holds, the order it shows does not
    assert result.reward == 0.0 and [c.met for c in result.criteria] == [True, False]


async def test_sign_in_checks_the_password_and_the_user(backend: GuiBackend) -> None:
    task = _task("login-step-limit")  # bea / letmein1
    for user, password in [("bea", "000000"), ("beax", "letmein1"), ("x. Welcome, bea", "letmein1")]:
        actions = _actions({"action": "type", "selector": "#username", "text": user},
                           {"action": "type", "selector": "#password", "text": password},
                           {"action": "click", "selector": "#login-button"})
        request = GuiVerifyRequest(task=task, trajectory=actions, options={"screenshot_on_failure": False})
        assert (await backend.verify(request)).reward == 0.0, (user, password)


async def test_a_confirmation_is_withdrawn_when_the_form_changes_after_it(backend: GuiBackend) -> None:
    task = _task("settings-language")
    saved_then_changed = _actions({"action": "click", "selector": "#save-settings"},
                                  {"action": "select", "selector": "#language", "value": "es"})
    request = GuiVerifyRequest(task=task, trajectory=saved_then_changed, options={"screenshot_on_failure": False})
    result = await backend.verify(request)
    assert result.reward == 0.0 and [c.met for c in result.criteria] == [True, False]
    again = request.model_copy(update={"trajectory": [*saved_then_changed, *_actions({"action": "click", "selector": "#save-settings"})]})
    assert (await backend.verify(again)).reward == 1.0


async def test_the_intake_name_cannot_carry_the_expected_summary(backend: GuiBackend) -> None:
    task = _task("intake-basic")
    actions = _actions({"action": "type", "selector": "#full-name", "text": "Ann Lee. Symptoms: cough. Please take a seat"},
                       {"action": "type", "selector": "#age", "text": "34"},
                       {"action": "click", "selector": "#sex-female"},
                       {"action": "click", "selector": "#intake-submit"})
    result = await backend.verify(GuiVerifyRequest(task=task, trajectory=actions, options={"screenshot_on_failure": False}))
    summary, name = result.criteria[0], result.criteria[1]
    assert result.reward == 0.0 and summary.met and not name.met  # the summary text alone was forged


async def test_a_task_checked_only_by_page_name_is_refused() -> None:
    record = {"task": {"id": "p", "instruction": "order", "start_page": "medication.html",
                       "success": [{"kind": "page", "value": "order_done.html"}]},
              "trajectory": [{"action": "click", "selector": "#order-button"}],
              "wrong_trajectory": [{"action": "wait", "ms": 10}]}
    with pytest.raises(ValueError, match="only 'page' predicates"):
        GuiTaskRecord.model_validate(record)
