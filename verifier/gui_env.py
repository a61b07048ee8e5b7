"""The GUI environment: the project's web pages in headless Chromium, driven through Playwright.

``Browser`` starts Playwright and Debian's Chromium lazily, once (about a second), and hands out an
isolated context per episode. ``GuiEnv`` is what a rollout sees: ``reset()`` and ``step(action)``
return an ``Observation`` (URL, title, the page's accessibility tree as text, optionally a
screenshot). The GUI verifier replays a trajectory with the same ``perform()`` and checks the task's
success predicates with ``check_predicate()``, so rollouts and verification cannot disagree.

Pages are only ever loaded from the pages folder (``file://``) or a server on 127.0.0.1/localhost:
a verify request cannot make the browser fetch anything else. A task's start page may be any of
those, with a query (``resolve_url``); the policy's ``goto`` action is narrower (``resolve_goto``):
a page of the pages folder by its plain name, with no URL scheme, query or fragment. A ``goto``
to ``javascript:`` would run script that writes what the predicates look for, and one to
``order_done.html?medication=...`` or ``index.html?user=ann`` would show the success page a form
produces without filling the form; both are refused as failed actions.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel

from verifier.backends import DATA_DIR
from verifier.types import GuiAction, GuiPredicate, GuiTask

logger = logging.getLogger(__name__)

PAGES_DIR = DATA_DIR / "gui" / "pages"
CHROMIUM_PATH = os.environ.get("MEDVERIFIER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
VIEWPORT = {"width": 1024, "height": 768}


class GuiError(ValueError):
    """A page reference or action that cannot be used (bad URL, missing field for the action)."""


def resolve_url(ref: str, pages_dir: Path = PAGES_DIR) -> str:
    """A page name under ``pages_dir`` (``"intake.html"``, ``"index.html?user=ann"``) or a local URL."""
    parts = urlsplit(ref)
    if parts.scheme in ("http", "https"):
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise GuiError(f"page {ref!r}: only pages on 127.0.0.1/localhost may be loaded")
        return ref
    if parts.scheme == "file":
        path = Path(parts.path).resolve()
    elif parts.scheme:
        raise GuiError(f"page {ref!r}: unsupported URL scheme {parts.scheme!r}")
    else:
        path = (pages_dir / parts.path).resolve()
    if not path.is_relative_to(pages_dir.resolve()):
        raise GuiError(f"page {ref!r} is outside the pages folder {pages_dir}")
    if not path.is_file():
        raise GuiError(f"page {ref!r} not found in {pages_dir}")
    return path.as_uri() + (f"?{parts.query}" if parts.query else "")


_GOTO_NAME = re.compile(r"[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*\.html")


def resolve_goto(ref: str, pages_dir: Path = PAGES_DIR) -> str:
    """The ``file://`` URL of a page the policy may open with ``goto``: a plain page name under
    ``pages_dir`` ("login.html"), nothing else (see the module docstring)."""
    if not _GOTO_NAME.fullmatch(ref):
        raise GuiError(
            f"goto {ref[:80]!r} refused: only a page of this site may be opened, by its plain name "
            "(e.g. 'login.html'); URL schemes (javascript:, data:, file:, http:), queries (?), "
            "fragments (#) and paths out of the pages folder are not allowed"
        )
    path = (pages_dir / ref).resolve()
    if not path.is_relative_to(pages_dir.resolve()) or not path.is_file():
        raise GuiError(f"goto {ref!r} refused: no such page in {pages_dir}")
    return path.as_uri()


class Browser:
    """One Playwright + Chromium per instance, started on first use and bound to that event loop."""

    def __init__(self, executable_path: str = CHROMIUM_PATH, *, headless: bool = True) -> None:
        self.executable_path = executable_path
        self.headless = headless
        self._playwright = None
        self._browser = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._pool: list = []
        self.launches = 0

    async def _ensure(self):
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # Playwright objects cannot cross event loops (e.g. between tests)
            if self._browser is not None:
                logger.warning("GUI browser used from a new event loop: starting another Chromium")
            self._playwright = self._browser = None
            self._pool = []
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            if self._browser is None:
                if not os.access(self.executable_path, os.X_OK):
                    raise RuntimeError(
                        f"Chromium not found at {self.executable_path}: install it with "
                        "'apt-get install -y chromium' (or 'make browser')"
                    )
                from playwright.async_api import async_playwright

                self._playwright = await async_playwright().start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=self.executable_path, headless=self.headless, args=CHROMIUM_ARGS
                )
                self.launches += 1
        return self._browser

    async def new_page(self):
        """A fresh isolated context (no cookies or storage shared between episodes) and its page."""
        browser = await self._ensure()
        context = await browser.new_context(viewport=VIEWPORT)
        return context, await context.new_page()

    async def acquire(self):
        """A (context, page) from the pool of reused contexts, or a new one.

        Opening a context costs about 0.3 s here against about 0.1 s for everything else in a
        verification, so contexts are reused: cookies are cleared and the page is sent to
        ``about:blank`` on release (the shipped pages keep their state in the URL and the DOM only).
        """
        await self._ensure()
        if self._pool:
            return self._pool.pop()
        return await self.new_page()

    async def release(self, context, page) -> None:
        try:
            await context.clear_cookies()
            await page.goto("about:blank")
        except Exception:  # noqa: BLE001 - a broken context is closed, not reused
            await context.close()
            return
        if len(self._pool) < 8:
            self._pool.append((context, page))
        else:
            await context.close()

    async def aclose(self) -> None:
        self._pool.clear()
        if self._browser is not None and self._loop is asyncio.get_running_loop():
            await self._browser.close()
            await self._playwright.stop()
        self._browser = self._playwright = None


async def perform(page, action: GuiAction, *, pages_dir: Path = PAGES_DIR, timeout_ms: int = 5000) -> None:
    """Carry out one action; raises (GuiError, Playwright errors) when it cannot be done."""
    kind = action.action

    def need(field: str):
        value = getattr(action, field)
        if value is None:
            raise GuiError(f"{kind} action needs '{field}'")
        return value

    if kind == "click":
        if action.selector is not None:
            await page.click(action.selector, timeout=timeout_ms)
        elif action.x is not None and action.y is not None:
            await page.mouse.click(action.x, action.y)
        else:
            raise GuiError("click action needs 'selector' or both 'x' and 'y'")
    elif kind == "type":
        text = need("text")
        if action.selector is not None:
            await page.fill(action.selector, text, timeout=timeout_ms)
        else:
            await page.keyboard.type(text)
    elif kind == "select":
        selector, value = need("selector"), need("value")
        # by value or by visible label, decided in one look (select_option would wait for a missing one)
        index = await page.locator(selector).evaluate(
            "(el, v) => [...el.options].findIndex(o => o.value === v || o.label.trim() === v)", value,
            timeout=timeout_ms,
        )
        if index < 0:
            raise GuiError(f"select {selector}: no option with value or label {value!r}")
        await page.select_option(selector, index=index, timeout=timeout_ms)
    elif kind == "press":
        key = need("key")
        if action.selector is not None:
            await page.press(action.selector, key, timeout=timeout_ms)
        else:
            await page.keyboard.press(key)
    elif kind == "scroll":
        if action.selector is not None:
            await page.locator(action.selector).scroll_into_view_if_needed(timeout=timeout_ms)
        else:
            await page.mouse.wheel(0, action.delta_y if action.delta_y is not None else 400)
    elif kind == "wait":
        if action.selector is not None:
            await page.wait_for_selector(action.selector, timeout=timeout_ms)
        else:
            await page.wait_for_timeout(min(action.ms or 200, 5000))
    elif kind == "goto":
        await page.goto(resolve_goto(need("url"), pages_dir), timeout=timeout_ms * 5)
    await page.wait_for_load_state("domcontentloaded")


def page_name(url: str) -> str:
    """The file name of the current page, without query or fragment (``order_done.html``)."""
    return urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]


async def check_predicate(page, predicate: GuiPredicate) -> tuple[bool, str]:
    """Whether ``predicate`` holds on the current page, with what was actually found."""
    try:
        if predicate.kind == "page":
            name = page_name(page.url)
            return name == predicate.value, f"page is {name!r}"
        if predicate.kind == "visible_text":
            target = page.locator(predicate.selector or "body").first
            if not await target.is_visible():
                return False, f"{predicate.selector} is not visible"
            text = await target.inner_text(timeout=1000)
            return (predicate.value or "") in text, f"visible text: {text[:200]!r}"
        if predicate.selector is None:
            return False, f"{predicate.kind} predicate needs a selector"
        if predicate.kind == "field_value":
            value = await page.input_value(predicate.selector, timeout=1000)
            return value.strip() == (predicate.value or "").strip(), f"value is {value!r}"
        if predicate.kind == "checked":
            checked = await page.is_checked(predicate.selector, timeout=1000)
            want = (predicate.value or "true").lower() in ("true", "1", "yes", "on")
            return checked == want, f"checked is {checked}"
    except Exception as exc:  # noqa: BLE001 - a missing element means the predicate does not hold
        return False, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    return False, f"unknown predicate kind {predicate.kind!r}"


class Observation(BaseModel):
    url: str
    title: str
    tree: str  # the accessibility tree (ARIA snapshot, YAML-like text)
    step: int
    done: bool = False
    last_error: str | None = None
    screenshot_path: str | None = None


class GuiEnv:
    """A rollout environment for one GUI task: ``reset()``, then ``step(action)`` until ``done``."""

    def __init__(
        self,
        task: GuiTask,
        browser: Browser | None = None,
        *,
        pages_dir: Path = PAGES_DIR,
        screenshot_dir: Path | None = None,
        timeout_ms: int = 5000,
        max_tree_chars: int = 6000,
    ) -> None:
        self.task = task
        self.browser = browser or Browser()
        self._owns_browser = browser is None
        self.pages_dir = pages_dir
        self.screenshot_dir = screenshot_dir
        self.timeout_ms = timeout_ms
        self.max_tree_chars = max_tree_chars
        self.steps = 0
        self._context = None
        self.page = None

    async def reset(self) -> Observation:
        await self._close_context()
        self.steps = 0
        self._context, self.page = await self.browser.new_page()
        await self.page.goto(resolve_url(self.task.start_page, self.pages_dir), timeout=self.timeout_ms * 5)
        return await self.observe()

    async def step(self, action: GuiAction) -> Observation:
        if self.page is None:
            raise RuntimeError("GuiEnv.step() before reset()")
        self.steps += 1
        error = None
        try:
            await perform(self.page, action, pages_dir=self.pages_dir, timeout_ms=self.timeout_ms)
        except Exception as exc:  # noqa: BLE001 - the policy sees the failure and goes on
            error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        return await self.observe(last_error=error)

    async def succeeded(self) -> bool:
        results = [await check_predicate(self.page, p) for p in self.task.success]
        return all(ok for ok, _ in results)

    async def observe(self, *, last_error: str | None = None) -> Observation:
        page = self.page
        tree = await page.locator("body").aria_snapshot(timeout=self.timeout_ms)
        shot = None
        if self.screenshot_dir is not None:
            self.screenshot_dir.mkdir(parents=True, exist_ok=True)
            shot = str(self.screenshot_dir / f"{self.task.id or 'task'}-step{self.steps}.png")
            await page.screenshot(path=shot)
        done = self.steps >= self.task.max_steps or await self.succeeded()
        return Observation(url=page.url, title=await page.title(), tree=tree[: self.max_tree_chars],
                           step=self.steps, done=done, last_error=last_error, screenshot_path=shot)

    async def _close_context(self) -> None:
        if self._context is not None:
            await self._context.close()
        self._context = self.page = None

    async def close(self) -> None:
        await self._close_context()
        if self._owns_browser:
            await self.browser.aclose()
