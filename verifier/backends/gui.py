"""The GUI verifier: replay a trajectory of actions in headless Chromium, check the final DOM.

A request's task names a start page (a page of ``data/gui/pages``, or a URL under the backend's
``allowed_urls``, none by default: see ``verifier.gui_env``) and success
predicates: ``field_value`` (an input's value), ``checked`` (a checkbox/radio), ``page`` (the
current page's file name) and ``visible_text`` (text rendered in an element, or anywhere on the page).
The trajectory is a list of ``GuiAction`` (click by selector or x,y; type; select; press; scroll;
wait; goto). Reward = 1 when every predicate holds after the replay and the trajectory used at most
``task.max_steps`` actions, else 0.

The reward must not be reachable without doing the task (``evaluation/audit_gui.py`` tries):

* ``goto`` opens a page of the site by its plain name only (``verifier.gui_env.resolve_goto``):
  ``javascript:``/``data:``/``file:`` URLs, queries and fragments are refused as failed actions,
  so no script can write the expected text and no success page can be opened with the query a
  form would have produced (``order_done.html?medication=...``, ``index.html?user=ann``).
* A ``page`` predicate is never a task's only kind of predicate (``GuiTaskRecord`` refuses it):
  any page can be opened by name, so the task must also check the state that page shows.
* The shipped pages withdraw a confirmation ("Settings saved", the intake summary) as soon as the
  form changes after it, so a stale confirmation cannot stand for the final form; the sign-in page
  checks the password; and where a confirmation echoes free text (the intake summary shows the
  typed name), the task also checks the fields, so typing the expected text as a name is no shortcut. Meta: steps used, actions that failed, each predicate's finding
(also as criteria), and on failure the path of a screenshot of the final page.

Could not grade is ``reward=None`` (never 0.0), with ``meta["unscored_reason"]``: Chromium missing or
crashing at launch, a start page the site does not allow, or one that did not load. Requests the
page made and the site refused are counted in ``meta["blocked_requests"]`` (the first few URLs in
``meta["blocked_urls"]``); they are blocked, not failed actions, and change no reward by themselves.

One Chromium serves every verification of a backend instance (started on first use, closed by
``aclose()``); browser contexts are pooled and reset between verifications (see ``Browser.acquire``).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field, model_validator

from verifier.backends import DATA_DIR, load_records
from verifier.gui_env import Browser, GuiError, browser_for, check_predicate, perform
from verifier.types import CriterionResult, GuiAction, GuiOptions, GuiTask, GuiVerifyRequest, VerifyResult

logger = logging.getLogger(__name__)


def _describe(predicate) -> str:
    target = f" {predicate.selector}" if predicate.selector else ""
    return f"{predicate.kind}{target} = {predicate.value!r}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _unscored(task: GuiTask, meta: dict, reason: str) -> VerifyResult:
    """Nothing is known about the trajectory: reward None (never 0.0), the reason in ``meta``."""
    logger.warning("gui task %s could not be graded: %s", task.id or "?", reason)
    meta["unscored_reason"] = reason
    criteria = [CriterionResult(criterion=_describe(p), points=1, met=None, grader="dom", explanation=reason)
                for p in task.success]
    return VerifyResult(domain="gui", reward=None, criteria=criteria, unscored=len(criteria), meta=meta)


class GuiBackend:
    """``pages_dir`` (default the shipped pages) and ``allowed_urls`` (URL prefixes such as
    ``http://127.0.0.1:8080/app/``; default none) are all the browser may load; with ``browser``
    given they default to its site, and must agree with it."""

    domain = "gui"

    def __init__(
        self,
        browser: Browser | None = None,
        *,
        pages_dir: Path | None = None,
        allowed_urls: Sequence[str] | None = None,
        output_dir: Path | None = None,
        max_concurrency: int = 4,
    ) -> None:
        self.browser = browser_for(browser, pages_dir, allowed_urls)
        self.site = self.browser.site
        self.pages_dir = self.site.pages_dir
        self.output_dir = output_dir or Path(tempfile.gettempdir()) / "medverifier-gui"
        self._max_concurrency = max_concurrency
        self._semaphores: dict[int, asyncio.Semaphore] = {}

    def _semaphore(self) -> asyncio.Semaphore:
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._semaphores:
            self._semaphores = {loop_id: asyncio.Semaphore(self._max_concurrency)}
        return self._semaphores[loop_id]

    async def aclose(self) -> None:
        await self.browser.aclose()

    async def verify(self, request: object) -> VerifyResult:
        if not isinstance(request, GuiVerifyRequest):
            raise TypeError(f"gui backend got {type(request).__name__}, expected GuiVerifyRequest")
        async with self._semaphore():
            return await self._verify(request.task, request.trajectory, request.options)

    async def _verify(self, task: GuiTask, actions: list[GuiAction], options: GuiOptions) -> VerifyResult:
        meta: dict[str, str | int | float | bool | None] = {
            "task_id": task.id, "steps_used": len(actions), "max_steps": task.max_steps,
        }
        try:
            start = self.site.start_url(task.start_page)
        except GuiError as exc:
            return _unscored(task, meta, f"start page refused: {exc}")
        try:
            context, page = await self.browser.acquire()
        except Exception as exc:  # noqa: BLE001 - BrowserUnavailable, or a browser that died since
            return _unscored(task, meta, f"browser could not start: {_first_line(exc)}")
        try:
            try:
                await page.goto(start, timeout=options.action_timeout_ms * 5)
            except Exception as exc:  # noqa: BLE001 - no start page, nothing to grade
                return _unscored(task, meta, f"start page {task.start_page!r} did not load: {_first_line(exc)}")
            failed: list[str] = []
            for index, action in enumerate(actions[: task.max_steps]):
                try:
                    await perform(page, action, pages_dir=self.pages_dir, timeout_ms=options.action_timeout_ms)
                except Exception as exc:  # noqa: BLE001 - a failed action is part of the trajectory
                    target = action.selector or (f"{action.x},{action.y}" if action.x is not None else "")
                    failed.append(f"step {index} ({action.action} {target}): {str(exc).splitlines()[0][:160]}")
            criteria = []
            for predicate in task.success:
                ok, found = await check_predicate(page, predicate)
                criteria.append(CriterionResult(criterion=_describe(predicate), points=1, met=ok,
                                                explanation=found, grader="dom"))
            within = len(actions) <= task.max_steps
            success = within and all(c.met for c in criteria)
            meta.update(
                failed_actions=len(failed),
                action_errors="; ".join(failed)[:1000] or None,
                over_max_steps=not within,
                final_page=page.url,
                predicates_met=sum(1 for c in criteria if c.met),
            )
            blocked = self.browser.blocked(context)
            meta.update(blocked_requests=len(blocked), blocked_urls="; ".join(blocked[:5])[:500] or None)
            if not success and options.screenshot_on_failure:
                self.output_dir.mkdir(parents=True, exist_ok=True)
                shot = self.output_dir / f"{task.id or 'task'}-{uuid.uuid4().hex[:8]}.png"
                await page.screenshot(path=str(shot))
                meta["screenshot"] = str(shot)
            reward = 1.0 if success else 0.0
            return VerifyResult(domain="gui", reward=reward, scores={"success": reward},
                                criteria=criteria, meta=meta)
        finally:
            await self.browser.release(context, page)


class GuiTaskRecord(BaseModel):
    """One line of ``data/gui/tasks.jsonl``: a task with a known correct and a known wrong trajectory."""

    task: GuiTask
    trajectory: list[GuiAction] = Field(min_length=1)
    wrong_trajectory: list[GuiAction] = Field(min_length=1)

    @model_validator(mode="after")
    def _page_predicates_need_state(self) -> GuiTaskRecord:
        if all(p.kind == "page" for p in self.task.success):
            raise ValueError(
                f"task {self.task.id!r}: only 'page' predicates, which a goto to that page meets; "
                "add a predicate on the state the page must show (visible_text, field_value, checked)"
            )
        return self

    def request(self, *, wrong: bool = False, options: GuiOptions | None = None) -> GuiVerifyRequest:
        return GuiVerifyRequest(task=self.task, options=options or GuiOptions(),
                                trajectory=self.wrong_trajectory if wrong else self.trajectory)


def load_gui_tasks(path: str | Path | None = None) -> list[GuiTaskRecord]:
    return load_records(path or DATA_DIR / "gui" / "tasks.jsonl", GuiTaskRecord)
