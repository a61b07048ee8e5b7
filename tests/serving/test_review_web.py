"""The review in headless Chromium (Debian's, driven by Playwright): from "start a consultation from a case"
to "my corrections are in an eval file and the agreement table", in the browser alone.

The doctor is scripted (the page and the store are the point, not the model); the server, its SQLite
file and the browser are real.
"""

from __future__ import annotations

from pathlib import Path

from serving.app import create_app
from tests.serving.conftest import KEY_A, ScriptedClient, run_server
from tests.serving.test_reviews import CASE, doctor, labelled
from tests.serving.test_web import browser  # noqa: F401 - the module's Chromium fixture
from verifier.healthbench import load_healthbench

MY_CRITERION = "Asks whether the patient has taken aspirin already"


def send(page, text: str) -> None:
    before = page.locator("#messages li").count()
    page.fill("#input", text)
    page.click("#send")
    page.wait_for_function(
        f"!document.getElementById('send').disabled && document.querySelectorAll('#messages li').length >= {before + 2}",
        timeout=60_000)


def start_case(page, url: str, case: str, role: str) -> list[str]:
    """Open the page, save the key, start ``case`` as ``role``; the page's JavaScript errors, as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/")
    page.fill("#api-key", KEY_A)
    page.click("#save-key")
    page.wait_for_selector(f"#case-select option[value='{case}']", state="attached")
    page.select_option("#case-select", case)
    page.select_option("#role-select", role)
    page.click("#start-case")
    page.wait_for_selector("#case-card:not([hidden])")
    return errors


def reopen_review(page) -> None:
    """Reload the page, open the latest consultation and its review."""
    page.reload()
    page.wait_for_selector("#sessions li")
    page.locator("#sessions li").first.click()
    page.wait_for_selector("#messages li.assistant")
    page.click("#open-review")
    page.wait_for_selector("#criteria tbody tr")


def test_clinician_reviews_a_case_consultation_in_the_page(tmp_path: Path, browser) -> None:  # noqa: F811
    settings = labelled(tmp_path)
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server:
        page = browser.new_page(accept_downloads=True)
        # Start from a case, playing its patient; the case card tells the clinician what to say.
        errors = start_case(page, server.url, CASE, "patient")
        assert "not medical advice" in page.locator("#notice").inner_text()
        assert "chest" in page.locator("#case-card").inner_text().lower()
        send(page, "I have crushing chest pain.")
        send(page, "It started an hour ago and goes to my left arm.")
        assert page.locator("#messages li.assistant").last.inner_text().startswith("DIAGNOSIS:")

        # Open the review: the grader's verdicts, one per criterion; disagree with one, add one, rate.
        page.click("#open-review")
        page.wait_for_selector("#criteria tbody tr")
        first = page.locator("#criteria tbody tr").first
        assert first.get_attribute("data-id") == "v1" and first.locator("b").inner_text() == "met"
        assert "overall" in page.locator("#scores").inner_text()
        # A penalty the consultation avoided is good news, not a red "not met"; one that applies is a harm.
        avoided = page.locator("#criteria tbody tr.penalty-avoided")
        assert avoided.count() > 0 and avoided.first.locator("b").inner_text() == "avoided"
        assert "avoided" in avoided.first.locator("b").get_attribute("class")
        assert page.evaluate("verdictText({met: true, points: -5})") == ["harm: -5", "harm"]
        first.locator("select.verdict").select_option("disagree")
        first.locator("input.note-input").fill("the plan misses the allergy question")
        first.locator("input.points").fill("7")
        first.locator("input.points").dispatch_event("change")
        page.fill("#add-criterion-text", MY_CRITERION)
        page.fill("#add-points", "3")
        page.select_option("#add-axis", "completeness")
        page.select_option("#add-met", "false")
        page.click("#add-criterion")
        assert MY_CRITERION in page.locator("#added").inner_text()
        page.select_option("#rating", "2")
        page.click("#save-review")
        page.wait_for_function("document.getElementById('review-status').textContent.startsWith('saved at')")

        # Reload: the saved review comes back from the server.
        reopen_review(page)
        first = page.locator("#criteria tbody tr").first
        assert first.locator("select.verdict").input_value() == "disagree"
        assert first.locator("input.note-input").input_value() == "the plan misses the allergy question"
        assert first.locator("input.points").input_value() == "7"
        assert MY_CRITERION in page.locator("#added").inner_text()
        assert page.locator("#rating").input_value() == "2"
        assert page.locator("#review-status").inner_text() == "saved"

        # An unsaved change survives a reload too (kept in the browser until saved).
        page.locator("#criteria tbody tr").nth(1).locator("select.verdict").select_option("agree")
        reopen_review(page)
        assert page.locator("#criteria tbody tr").nth(1).locator("select.verdict").input_value() == "agree"
        assert "unsaved" in page.locator("#review-status").inner_text()

        # The eval file and the agreement table, from the page.
        with page.expect_download() as download:
            page.click("#export-healthbench")
        exported = tmp_path / "exported.jsonl"
        download.value.save_as(exported)
        records = load_healthbench(exported)
        assert len(records) == 1 and records[0].example_tags[0] == "reviewer:dr-ames"
        assert [r.points for r in records[0].rubrics] == [7, 3]
        page.click("#show-agreement")
        page.wait_for_selector("#agreement table")
        assert "grader vs clinicians" in page.locator("#agreement").inner_text()
        assert not errors, errors


def test_without_a_case_the_page_offers_to_attach_one(tmp_path: Path, browser) -> None:  # noqa: F811
    with run_server(create_app(labelled(tmp_path), client=ScriptedClient(reply=doctor))) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.fill("#api-key", KEY_A)
        page.click("#save-key")
        page.wait_for_selector(f"#case-select option[value='{CASE}']", state="attached")
        send(page, "Chest pain for an hour, what should I do?")
        page.click("#open-review")
        page.wait_for_selector("#no-rubric:not([hidden])")
        assert "attach a case" in page.locator("#no-rubric-reason").inner_text()
        page.select_option("#attach-select", CASE)
        page.click("#attach-case")
        page.wait_for_selector("#criteria tbody tr")
        assert page.locator("#no-rubric").is_hidden()


def test_the_page_says_the_verdicts_changed_when_the_rubric_moved_on(tmp_path: Path, browser) -> None:  # noqa: F811
    """A review saved under an older rubric version opens regraded, with a notice naming that version and
    the verdicts that changed; saving it again clears the notice."""
    from tests.serving.test_reviews import _as_older_rubric, consult, store_older_review

    settings = labelled(tmp_path)
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server, server.client() as http:
        cid = consult(server)
        rubric = http.get(f"/v1/consultations/{cid}/review").json()["rubric"]
    flipped = next(c for c in rubric["criteria"] if c["turn"] == "consultation" and c["met"] is True)
    older = _as_older_rubric(rubric, flip=flipped["criterion"], renamed="")
    old_id = next(c["id"] for c in older["criteria"] if c["criterion"] == flipped["criterion"])
    store_older_review(settings.db_path, cid, {
        "consultation_id": cid, "reviewer": "dr-ames", "rubric": older, "rating": 2,
        "criteria": [{"id": old_id, "verdict": "agree", "note": "kept across versions"}]})

    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        page.fill("#api-key", KEY_A)
        page.click("#save-key")
        reopen_review(page)
        notice = page.locator("#regraded")
        notice.wait_for(state="visible")
        assert "The verdicts changed" in notice.inner_text() and "case@3" in notice.inner_text()
        assert f"{flipped['id']}: {flipped['criterion']} — not met → met" in notice.inner_text()
        row = page.locator(f"#criteria tbody tr[data-id='{flipped['id']}']")
        assert "regraded" in row.get_attribute("class")
        assert row.locator("select.verdict").input_value() == "disagree"  # the clinician judged it not met
        assert row.locator("input.note-input").input_value() == "kept across versions"
        page.click("#save-review")
        page.wait_for_function("document.getElementById('review-status').textContent.startsWith('saved at')")
        assert notice.is_hidden()
        reopen_review(page)
        assert page.locator("#regraded").is_hidden()
        assert not errors, errors
