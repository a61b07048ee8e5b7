"""The GUI backend and environment in real headless Chromium (Debian's, through Playwright)."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import pytest_asyncio

from verifier.backends.gui import GuiBackend, GuiTaskRecord, load_gui_tasks
from verifier.gui_env import (
    PAGES_DIR,
    Browser,
    GuiEnv,
    GuiError,
    Site,
    resolve_goto,
    resolve_url,
    url_allowed,
)
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


async def test_start_pages_are_the_sites_own_unless_a_url_is_allowed(tmp_path: Path) -> None:
    assert resolve_url("index.html?user=x").startswith("file://") and resolve_url("index.html?user=x").endswith("?user=x")
    refused = ["http://127.0.0.1:8000/a.html", "http://localhost:8000/", "http://[::1]:8000/", "https://example.com/",
               "../../README.md", "missing.html", "javascript:alert(1)", str(tmp_path.as_uri())]
    for bad in refused:
        with pytest.raises(GuiError):
            resolve_url(bad)
    allowed = ["http://127.0.0.1:8000/app/"]
    assert resolve_url("http://127.0.0.1:8000/app/a.html?x=1", allowed_urls=allowed) == "http://127.0.0.1:8000/app/a.html?x=1"
    assert url_allowed("http://127.0.0.1:8000/app", allowed) and url_allowed("HTTP://127.0.0.1:8000/app/x/y", allowed)
    for other in ["http://127.0.0.1:8000/apples", "http://127.0.0.1:8000/", "http://127.0.0.1:8001/app/",
                  "https://127.0.0.1:8000/app/", "http://localhost:8000/app/", "http://127.0.0.1:8000@evil.test/app/",
                  "ws://127.0.0.1:8000/app/"]:
        assert not url_allowed(other, allowed), other
    assert url_allowed("http://127.0.0.1/x", ["http://127.0.0.1:80"])  # an origin allows all its paths
    for entry in ["ftp://127.0.0.1/", "http:///x", "http://127.0.0.1:8000/?q=1", "http://u:p@127.0.0.1/"]:
        with pytest.raises(GuiError, match="allowed URL"):
            Site(allowed_urls=(entry,))
    with pytest.raises(ValueError, match="not the one asked for"):
        GuiBackend(Browser(), allowed_urls=allowed)


# --------------------------------------------------------------------------- what the browser may reach
class _Recorder(ThreadingHTTPServer):
    """A local HTTP server that records every connection it accepts and every request line."""

    daemon_threads = True

    def __init__(self, directory: Path | None = None) -> None:
        self.connections: list[tuple[str, int]] = []
        self.requests: list[str] = []
        self.directory = directory
        super().__init__(("127.0.0.1", 0), _Handler)

    def verify_request(self, request, client_address) -> bool:
        self.connections.append(client_address)
        return True

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(SimpleHTTPRequestHandler):
    """``/redirect?to=URL`` answers 302 to URL; files come from the server's directory; else 200 'ok'."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=str(args[2].directory or "/nonexistent"), **kwargs)

    def parse_request(self) -> bool:
        self.server.requests.append(self.raw_requestline.decode("latin-1").strip())
        return super().parse_request()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.end_headers()
        elif self.server.directory is not None:
            super().do_GET()
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<p>ok</p>")

    do_POST = do_GET

    def log_message(self, *args) -> None:
        pass


@contextmanager
def _server(directory: Path | None = None):
    server = _Recorder(directory)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _probe_page(pages: Path, target: str) -> None:
    """A page that asks for ``target`` (a server and a path prefix) in every way a page can."""
    host = urlsplit(target).netloc
    (pages / "probe.html").write_text(f"""<!doctype html><html><head><title>probe</title>
<link rel="stylesheet" href="{target}/style.css"><link rel="prefetch" href="{target}/prefetch">
<link rel="preconnect" href="{target}"><script src="{target}/script.js"></script></head>
<body><p id="status">probe</p><img src="{target}/img.png"><iframe src="{target}/frame.html"></iframe>
<iframe src="file:///etc/hostname"></iframe><a id="link" href="{target}/link">away</a>
<form action="{target}/form" method="post"><input name="q" value="x"><button id="send">send</button></form>
<script>
fetch("{target}/fetch").catch(() => {{}});
const xhr = new XMLHttpRequest(); xhr.open("GET", "{target}/xhr"); xhr.send();
navigator.sendBeacon("{target}/beacon", "x");
try {{ new WebSocket("ws://{host}{urlsplit(target).path}/ws"); }} catch (e) {{}}
try {{ new EventSource("{target}/events"); }} catch (e) {{}}
try {{ window.open("{target}/popup"); }} catch (e) {{}}
try {{ const pc = new RTCPeerConnection({{iceServers: [{{urls: "turn:{host}?transport=tcp", username: "u", credential: "p"}}]}});
       pc.createDataChannel("x"); pc.createOffer().then(o => pc.setLocalDescription(o)); }} catch (e) {{}}
</script></body></html>""", encoding="utf-8")


PROBED = {"/style.css", "/prefetch", "/script.js", "/img.png", "/frame.html", "/fetch", "/xhr", "/beacon", "/events",
          "/popup"}


def _probe_request() -> GuiVerifyRequest:
    task = GuiTask(id="probe", instruction="stay", start_page="probe.html", max_steps=6,
                   success=[GuiPredicate(kind="visible_text", selector="#status", value="probe")])
    actions = [GuiAction(action="wait", ms=800), GuiAction(action="click", selector="#link"),
               GuiAction(action="goto", url="probe.html"), GuiAction(action="click", selector="#send"),
               GuiAction(action="wait", ms=300), GuiAction(action="goto", url="probe.html")]
    return GuiVerifyRequest(task=task, trajectory=actions, options={"screenshot_on_failure": False})


@pytest.mark.parametrize("allow_an_app", [False, True], ids=["pages-only", "with-allowed-url"])
async def test_a_page_cannot_reach_a_local_service(tmp_path: Path, allow_an_app: bool) -> None:
    """Subresources, frames, fetch/XHR, beacons, WebSockets, SSE, popups, links, forms and WebRTC
    towards a local server: it receives no request and no connection, and the refusals are counted."""
    token = f"/probe-{uuid.uuid4().hex[:12]}"  # tells the probe's requests from strays of other processes
    with _server() as target, _server() as app:
        _probe_page(tmp_path, target.base + token)
        backend = GuiBackend(pages_dir=tmp_path, allowed_urls=[f"{app.base}/"] if allow_an_app else None)
        try:
            context, page = await backend.browser.acquire()
            await page.goto((tmp_path / "probe.html").as_uri())
            await page.wait_for_timeout(800)
            blocked = backend.browser.blocked(context)
            await backend.browser.release(context, page)
            assert {urlsplit(u).path for u in blocked} >= {token + p for p in PROBED}, blocked
            assert "file:///etc/hostname" in blocked and f"ws://{urlsplit(target.base).netloc}{token}/ws" in blocked
            result = await backend.verify(_probe_request())
        finally:
            await backend.aclose()
        assert result.reward == 1.0 and result.meta["blocked_requests"] >= len(PROBED) + 2  # + the link and the form
        assert target.base in str(result.meta["blocked_urls"])
        assert not [r for r in target.requests if token in r], target.requests  # not one request reached it
        # and not even a connection: a non-allowed origin's only way out is a dead proxy (with an
        # allowed URL, the proxy auto-config sends only the allowed origins direct)
        assert target.connections == []
        assert app.connections == []  # allowed, but never asked for


async def test_the_network_layer_holds_where_interception_would_miss(tmp_path: Path, monkeypatch) -> None:
    """With request interception switched off, the proxy auto-config alone still keeps the page off a
    local service that is not on the allow-list, while an allowed one is reached."""
    from verifier.gui_env import Browser

    async def let_everything_through(self, route, context, blocked) -> None:
        await route.continue_()

    monkeypatch.setattr(Browser, "_route", let_everything_through)
    token = f"/probe-{uuid.uuid4().hex[:12]}"
    with _server() as target, _server() as app:
        _probe_page(tmp_path, target.base + token)
        (tmp_path / "reach.html").write_text(f'<img src="{app.base}/allowed.png"><p id="status">x</p>')
        backend = GuiBackend(pages_dir=tmp_path, allowed_urls=[f"{app.base}/"])
        try:
            context, page = await backend.browser.acquire()
            for name in ("probe.html", "reach.html"):
                await page.goto((tmp_path / name).as_uri())
                await page.wait_for_timeout(800)
            await backend.browser.release(context, page)
        finally:
            await backend.aclose()
    assert not [r for r in target.requests if token in r], target.requests
    assert target.connections == []
    assert any("/allowed.png" in r for r in app.requests), app.requests  # the wall is not "no network"


async def test_pages_of_an_allowed_url_load_and_redirects_off_the_list_are_refused() -> None:
    with _server() as target, _server(directory=PAGES_DIR) as app:
        backend = GuiBackend(allowed_urls=[f"{app.base}/"])
        registry = Registry()
        registry.register(backend)
        login = {"domain": "gui",
                 "task": {"id": "http-login", "instruction": "sign in", "start_page": f"{app.base}/login.html",
                          "success": [{"kind": "page", "value": "index.html"},
                                      {"kind": "visible_text", "value": "Welcome, zoe"}]},
                 "trajectory": [{"action": "type", "selector": "#username", "text": "zoe"},
                                {"action": "type", "selector": "#password", "text": "abcdef"},
                                {"action": "click", "selector": "#login-button"}]}
        try:
            assert (await registry.verify(login)).reward == 1.0
            hop = f"{app.base}/redirect?to=" + quote(f"{app.base}/login.html", safe="")
            login["task"]["start_page"] = hop  # a redirect that stays on the list is followed
            assert (await registry.verify(login)).reward == 1.0
            secret = f"{target.base}/secret-{uuid.uuid4().hex[:12]}"
            for start in [f"{app.base}/redirect?to={secret}",  # one hop off the list
                          f"{app.base}/redirect?to=" + quote(f"{app.base}/redirect?to={secret}", safe=""),
                          f"{target.base}/login.html", "https://example.com/"]:
                login["task"]["start_page"] = start
                refused = await registry.verify(login)
                assert refused.reward is None and refused.unscored == 2, start
                assert "did not load" in str(refused.meta["unscored_reason"]) or "refused" in str(refused.meta["unscored_reason"])
        finally:
            await backend.aclose()
        assert not [r for r in target.requests if "/secret-" in r or "login.html" in r], target.requests
        assert any("login.html" in r for r in app.requests)


async def test_local_http_start_pages_are_refused_by_default(backend: GuiBackend) -> None:
    with _server(directory=PAGES_DIR) as local:
        task = GuiTask(id="forged", instruction="sign in", start_page=f"{local.base}/login.html",
                       success=[GuiPredicate(kind="visible_text", value="Sign in")])
        for start in [f"{local.base}/login.html", f"http://localhost:{local.server_address[1]}/login.html",
                      f"{local.base}/redirect?to=/login.html"]:
            result = await backend.verify(GuiVerifyRequest(task=task.model_copy(update={"start_page": start}),
                                                           trajectory=[GuiAction(action="wait", ms=10)]))
            assert result.reward is None and "start page refused" in str(result.meta["unscored_reason"]), start
            assert [c.met for c in result.criteria] == [None] and result.unscored == 1
        assert local.connections == []


async def test_a_browser_that_cannot_start_leaves_the_request_unscored(tmp_path: Path) -> None:
    crashing = tmp_path / "chromium"
    crashing.write_text("#!/bin/sh\necho 'chromium: cannot open display' >&2\nexit 1\n", encoding="utf-8")
    crashing.chmod(0o755)
    record = load_gui_tasks()[0]
    for executable, reason in [(str(tmp_path / "missing"), "Chromium not found"), (str(crashing), "did not start")]:
        backend = GuiBackend(Browser(executable))
        try:
            result = await backend.verify(record.request())
        finally:
            await backend.aclose()
        assert result.reward is None and result.scores == {}, executable
        assert reason in str(result.meta["unscored_reason"]) and result.unscored == len(record.task.success)
        assert json.loads(result.model_dump_json())["reward"] is None  # travels as null, never 0.0


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
    # the start page keeps a query (a task may start signed in); a local server it may not name
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
