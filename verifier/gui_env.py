"""The GUI environment: the project's web pages in headless Chromium, driven through Playwright.

``Browser`` starts Playwright and Debian's Chromium lazily, once (about a second), and hands out an
isolated context per episode. ``GuiEnv`` is what a rollout sees: ``reset()`` and ``step(action)``
return an ``Observation`` (URL, title, the page's accessibility tree as text, optionally a
screenshot). The GUI verifier replays a trajectory with the same ``perform()`` and checks the task's
success predicates with ``check_predicate()``, so rollouts and verification cannot disagree.

What the browser may load is a ``Site``: the files of its pages folder and, only when configured,
the URL prefixes of ``allowed_urls`` (e.g. an app under test on ``http://127.0.0.1:8080/app/``).
Nothing else, whatever a request names: a task's start page must be a page of the site
(``resolve_url``), and every request the page makes (navigations, frames, subresources,
``fetch``/XHR, beacons, prefetches, WebSockets, each hop of a redirect) goes through the context's
route handler, which aborts what the site does not allow (and counts it). That keeps a verify
request from making the server's browser call local services (request forgery). The browser is also
launched behind a dead proxy (a port nothing listens on, loopback not bypassed) that only the
allowed origins bypass (``proxy_for``), so even a request the interception missed has nowhere to go
but an allowed origin. WebRTC, which
reaches hosts outside HTTP (STUN over UDP, TURN over TCP), is removed from every page. Playwright
does not route the hops of a redirect the browser follows itself: a redirect from an allowed URL is
followed here first, hop by hop, and refused unless every hop is allowed (a server that answers the
browser's repeat of a hop differently is the one case this cannot see).

The site rules (start pages, the narrower ``goto``, the proxy) live in ``verifier.gui_site``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel

from verifier.gui_site import (  # noqa: F401 - the site rules are part of this module's API
    DEAD_PROXY,
    PAGES_DIR,
    GuiError,
    Site,
    proxy_for,
    resolve_goto,
    resolve_url,
    url_allowed,
)
from verifier.types import GuiAction, GuiPredicate, GuiTask

logger = logging.getLogger(__name__)

CHROMIUM_PATH = os.environ.get("MEDVERIFIER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--webrtc-ip-handling-policy=disable_non_proxied_udp",
]
# no network at all for a site of files only: every proxied request fails, loopback included
# WebRTC reaches hosts outside HTTP (STUN over UDP, TURN over TCP); no page of a GUI task needs it
NO_WEBRTC = "for (const n of ['RTCPeerConnection', 'webkitRTCPeerConnection']) { try { delete window[n]; } catch (e) {} }"
VIEWPORT = {"width": 1024, "height": 768}
MAX_REDIRECTS = 5


class BrowserUnavailable(RuntimeError):
    """Chromium is missing or would not start: a verification cannot be graded (not a failure)."""


class Browser:
    """One Playwright + Chromium per instance, started on first use and bound to that event loop.

    Every context it hands out loads only what ``site`` allows (see the module docstring); what it
    refused is listed by ``blocked(context)`` until the context is released.
    """

    def __init__(self, executable_path: str = CHROMIUM_PATH, *, headless: bool = True,
                 site: Site | None = None) -> None:
        self.executable_path = executable_path
        self.headless = headless
        self.site = site or Site()
        self._playwright = None
        self._browser = None
        self._fetcher = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._pool: list = []
        self._blocked: dict[object, list[str]] = {}
        self.launches = 0

    async def _ensure(self):
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # Playwright objects cannot cross event loops (e.g. between tests)
            if self._browser is not None:
                logger.warning("GUI browser used from a new event loop: starting another Chromium")
            self._playwright = self._browser = self._fetcher = None
            self._pool = []
            self._blocked = {}
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            if self._browser is None:
                await self._launch()
        return self._browser

    async def _launch(self) -> None:
        if not os.access(self.executable_path, os.X_OK):
            raise BrowserUnavailable(
                f"Chromium not found at {self.executable_path}: install it with "
                "'apt-get install -y chromium' (or 'make browser')"
            )
        from playwright.async_api import async_playwright

        playwright = await async_playwright().start()
        try:
            self._browser = await playwright.chromium.launch(
                executable_path=self.executable_path, headless=self.headless, args=CHROMIUM_ARGS,
                proxy=proxy_for(self.site.allowed_urls),
            )
        except Exception as exc:
            await playwright.stop()
            first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
            raise BrowserUnavailable(f"Chromium at {self.executable_path} did not start: {first}") from exc
        self._playwright = playwright
        # Allowed http(s) requests are fetched here, outside the browser and its dead proxy (whose
        # bypass list Playwright's own fetch does not read), so that each redirect hop can be checked.
        self._fetcher = await playwright.request.new_context()
        self.launches += 1

    async def new_page(self):
        """A fresh isolated context (no cookies or storage shared between episodes) and its page."""
        browser = await self._ensure()
        context = await browser.new_context(viewport=VIEWPORT, service_workers="block", accept_downloads=False)
        blocked: list[str] = []
        self._blocked[context] = blocked

        async def route(route) -> None:
            await self._route(route, context, blocked)

        def route_socket(socket) -> None:
            http_url = re.sub(r"^ws", "http", socket.url, flags=re.IGNORECASE)
            if url_allowed(http_url, self.site.allowed_urls):
                socket.connect_to_server()
            else:
                blocked.append(socket.url)
                asyncio.ensure_future(socket.close(code=1008, reason="blocked by the GUI verifier"))

        await context.add_init_script(NO_WEBRTC)
        await context.route("**/*", route)
        await context.route_web_socket("**/*", route_socket)
        return context, await context.new_page()

    async def _route(self, route, context, blocked: list[str]) -> None:
        url = route.request.url
        if not self.site.allows(url):
            blocked.append(url)
            await route.abort("blockedbyclient")
            return
        if urlsplit(url).scheme.lower() == "file":
            await route.continue_()
            return
        # An allowed http(s) URL: fetched here so that a redirect off the list is seen; the browser
        # follows a fulfilled redirect without routing it, so every later hop is checked first.
        refused = None
        try:
            request = route.request
            response = await self._fetcher.fetch(url, method=request.method, headers=await request.all_headers(),
                                                 data=request.post_data_buffer, max_redirects=0)
            hop, hops = _redirect_target(url, response), 0
            while hop is not None:
                hops += 1
                if hops > MAX_REDIRECTS or not self.site.allows(hop):
                    refused = hop
                    break
                probe = await self._fetcher.get(hop, max_redirects=0)
                hop = _redirect_target(hop, probe)
                await probe.dispose()
        except Exception as exc:  # noqa: BLE001 - an allowed server that fails is a failed request
            logger.debug("GUI request %s failed: %s", url, exc)
            await route.abort("failed")
            return
        if refused is not None:
            blocked.append(refused)
            await route.abort("blockedbyclient")
            return
        await route.fulfill(response=response)

    def blocked(self, context) -> list[str]:
        """The URLs ``context`` asked for and was refused, since it was opened or last released."""
        return list(self._blocked.get(context, []))

    async def acquire(self):
        """A (context, page) from the pool of reused contexts, or a new one.

        Opening a context costs about 0.3 s here against about 0.1 s for everything else in a
        verification, so contexts are reused: popups are closed, cookies cleared and the page sent to
        ``about:blank`` on release (the shipped pages keep their state in the URL and the DOM only).
        """
        await self._ensure()
        if self._pool:
            return self._pool.pop()
        return await self.new_page()

    async def release(self, context, page) -> None:
        try:
            for other in context.pages:  # popups the episode opened do not outlive it
                if other is not page:
                    await other.close()
            await context.clear_cookies()
            await page.goto("about:blank")
            self._blocked.get(context, []).clear()
        except Exception:  # noqa: BLE001 - a broken context is closed, not reused
            self._blocked.pop(context, None)
            with contextlib.suppress(Exception):  # a browser that died takes its contexts with it
                await context.close()
            return
        if len(self._pool) < 8:
            self._pool.append((context, page))
        else:
            self._blocked.pop(context, None)
            await context.close()

    async def aclose(self) -> None:
        self._pool.clear()
        self._blocked.clear()
        if self._browser is not None and self._loop is asyncio.get_running_loop():
            await self._fetcher.dispose()
            await self._browser.close()
            await self._playwright.stop()
        self._browser = self._playwright = self._fetcher = None


def browser_for(browser: Browser | None, pages_dir: Path | None, allowed_urls: Sequence[str] | None) -> Browser:
    """``browser`` (checked against the site asked for), or a new one for that site."""
    if browser is None:
        return Browser(site=Site(pages_dir or PAGES_DIR, tuple(allowed_urls or ())))
    wanted = Site(pages_dir or browser.site.pages_dir,
                  tuple(allowed_urls) if allowed_urls is not None else browser.site.allowed_urls)
    if wanted != browser.site:
        raise ValueError(f"the browser's site {browser.site} is not the one asked for ({wanted}): "
                         "give the site to the Browser, or no browser")
    return browser


def _redirect_target(url: str, response) -> str | None:
    """Where a 3xx response sends the browser next, or None."""
    location = response.headers.get("location")
    return urljoin(url, location) if 300 <= response.status < 400 and location else None


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
        pages_dir: Path | None = None,
        allowed_urls: Sequence[str] | None = None,
        screenshot_dir: Path | None = None,
        timeout_ms: int = 5000,
        max_tree_chars: int = 6000,
    ) -> None:
        self.task = task
        self.browser = browser_for(browser, pages_dir, allowed_urls)
        self._owns_browser = browser is None
        self.pages_dir = self.browser.site.pages_dir
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
        await self.page.goto(self.browser.site.start_url(self.task.start_page), timeout=self.timeout_ms * 5)
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
