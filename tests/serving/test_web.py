"""The clinician page in headless Chromium (Debian's, driven by Playwright) against the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serving.conftest import KEY_A, Server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.is_file(), "run `make browser` (apt-get install -y chromium) first"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield browser
        browser.close()


def test_clinician_types_a_message_and_sees_the_streamed_reply(live: Server, browser) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live.url + "/")
    assert "API key" in page.locator("#status").inner_text()

    page.fill("#api-key", KEY_A)
    page.click("#save-key")
    page.fill("#input", "A 30-year-old with a sore throat and fever. What next?")
    page.click("#send")
    # The send button comes back and the session list refreshes once the reply has been stored.
    page.wait_for_function(
        "!document.getElementById('send').disabled && document.querySelectorAll('#sessions li').length > 0",
        timeout=120_000,
    )
    reply = page.locator("#messages li.assistant").last.inner_text()
    assert reply.strip() and reply != "…"
    assert page.locator("#messages li.error").count() == 0
    assert page.locator("#messages li.user").first.inner_text().startswith("A 30-year-old")

    # The key stays in localStorage; the past session is listed and reopens with its history.
    page.reload()
    page.wait_for_selector("#sessions li")
    page.locator("#sessions li").first.click()
    page.wait_for_selector("#messages li.assistant")
    assert page.locator("#messages li.assistant").last.inner_text() == reply
    assert not errors, errors


def test_wrong_key_shows_the_servers_message(live: Server, browser) -> None:
    page = browser.new_page()
    page.goto(live.url + "/")
    page.fill("#api-key", "not-a-key")
    page.click("#save-key")
    page.wait_for_function("document.getElementById('status').textContent.includes('invalid API key')")
