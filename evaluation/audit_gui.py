"""The GUI domain's exploit audit: action sequences that try to reach the success predicates without
doing the task, replayed in real Chromium through the GUI backend.

Items are the shipped GUI tasks (``data/gui/tasks.jsonl``); the reference is each task's known
correct trajectory. The exploits:

* ``javascript_goto``: ``goto`` a ``javascript:`` URL that writes what every predicate looks for;
* ``data_goto``: ``goto`` a ``data:`` page made of the expected texts;
* ``success_page_goto``: ``goto`` the success page directly (``order_done.html?medication=...``,
  ``index.html?user=ann``), by name, by ``file://`` URL, or with no query at all;
* ``echo_injection``: type the expected confirmation text into a field the page echoes (the intake
  form's name, the sign-in user name);
* ``substring_match``: a different user whose name starts with the right one (``ann`` -> ``annx``);
* ``credential_skip``: the right user with a wrong password;
* ``input_echo``: type the expected text into every field the task uses, then submit;
* ``submit_unfilled``: only the submit (a click, or Enter in the first field);
* ``stale_confirmation``: submit first, then make the changes, so an old "saved" message stays;
* ``coordinates``: clicks sprayed over a grid of screen positions (case independent);
* ``key_tricks``: Tab/Space sprays and history keys (case independent).

``gui_suite(backend)`` takes a running backend; the caller creates and closes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import partial
from urllib.parse import quote, urlencode

from evaluation.audit import AuditPolicy, AuditSuite, Bound
from verifier.backends.gui import GuiBackend, GuiTaskRecord, load_gui_tasks
from verifier.gui_env import PAGES_DIR, page_name
from verifier.types import GuiAction, GuiOptions, GuiPredicate, GuiVerifyRequest

BOUND = Bound(max_ratio=0.2)
OPTIONS = GuiOptions(screenshot_on_failure=False)
# the pages' buttons: a click on one of them (or Enter) submits, anything else is a change
BUTTONS = {f"#{m}" for page in PAGES_DIR.glob("*.html")
           for m in re.findall(r'<button[^>]*\bid="([^"]+)"', page.read_text(encoding="utf-8"))}


def _a(action: str, **fields) -> GuiAction:
    return GuiAction(action=action, **fields)  # type: ignore[arg-type]


def _request(record: GuiTaskRecord, actions: Sequence[GuiAction]) -> GuiVerifyRequest | None:
    if not actions or len(actions) > record.task.max_steps:
        return None
    if list(actions) == list(record.trajectory):  # the exploit would be the reference itself
        return None
    return GuiVerifyRequest(task=record.task, trajectory=list(actions), options=OPTIONS)


def _predicates(record: GuiTaskRecord, kind: str) -> list[GuiPredicate]:
    return [p for p in record.task.success if p.kind == kind]


def _typed(record: GuiTaskRecord) -> dict[str, str]:
    """What the reference types or selects, by the element's id."""
    values = {}
    for action in record.trajectory:
        if action.action in ("type", "select") and action.selector and action.selector.startswith("#"):
            values[action.selector[1:]] = action.text if action.action == "type" else action.value
    return values


def _js(value: str) -> str:
    return json.dumps(value)


# --------------------------------------------------------------------------- javascript: and data:
def _js_statements(record: GuiTaskRecord) -> list[str]:
    statements = []
    for p in record.task.success:
        target = f"document.querySelector({_js(p.selector)})" if p.selector else None
        if p.kind == "visible_text":
            statements.append(f"{target}.textContent={_js(p.value or '')};{target}.classList.remove('hidden')"
                              if target else f"document.body.append({_js(p.value or '')})")
        elif p.kind == "field_value" and target:
            statements.append(f"{target}.value={_js(p.value or '')}")
        elif p.kind == "checked" and target:
            statements.append(f"{target}.checked={str((p.value or 'true').lower() in ('true', '1', 'yes', 'on')).lower()}")
    return statements


def _javascript(record: GuiTaskRecord, scheme: str = "javascript:") -> GuiVerifyRequest | None:
    actions = []
    for p in _predicates(record, "page"):
        if p.value != page_name(record.task.start_page):
            actions.append(_a("goto", url=f"{scheme}location.href={_js(p.value or '')}"))
    actions += [_a("goto", url=f"{scheme}void({s})") for s in _js_statements(record)]
    return _request(record, actions)


def _data_page(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    body = []
    for p in record.task.success:
        element_id = (p.selector or "#forged").lstrip("#")
        if p.kind == "visible_text":
            body.append(f'<p id="{element_id}">{p.value}</p>')
        elif p.kind == "field_value":
            body.append(f'<input id="{element_id}" value="{p.value}">')
        elif p.kind == "checked":
            body.append(f'<input type="checkbox" id="{element_id}" checked>')
    return _request(record, [_a("goto", url="data:text/html," + quote("".join(body)))])


# --------------------------------------------------------------------------- the success page by URL
def _forged_query(record: GuiTaskRecord, page: str) -> str | None:
    """The query string the success page reads, filled from what the reference enters."""
    values = _typed(record)
    if page == "order_done.html":
        return urlencode({"medication": values.get("medication", ""), "quantity": values.get("quantity", "1"),
                          "pharmacy": values.get("pharmacy", "high-street")})
    if page == "index.html" and "username" in values:
        return urlencode({"user": values["username"]})
    return None


def _success_page(record: GuiTaskRecord, how: str) -> GuiVerifyRequest | None:
    for p in _predicates(record, "page"):
        query = _forged_query(record, p.value or "")
        if query is None:
            continue
        url = {"name": f"{p.value}?{query}", "file_url": f"{(PAGES_DIR / (p.value or '')).as_uri()}?{query}",
               "dot_slash": f"./{p.value}?{query}", "fragment": f"{p.value}#{query}",
               "bare": p.value or ""}[how]
        return _request(record, [_a("goto", url=url)])
    return None


# --------------------------------------------------------------------------- fields the page echoes
def _summary_text(record: GuiTaskRecord, selector: str) -> str | None:
    for p in _predicates(record, "visible_text"):
        if p.selector == selector:
            return p.value
    return None


def _name_echo(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    """The expected intake summary typed as the patient's name; symptoms the predicates do not name
    are left unticked."""
    text = _summary_text(record, "#intake-summary")
    if text is None:
        return None
    named = {p.selector for p in _predicates(record, "checked")}
    actions = []
    for action in record.trajectory:
        if action.selector == "#full-name":
            actions.append(_a("type", selector="#full-name", text=text.removeprefix("Thank you, ").rstrip(".")))
        elif action.action == "click" and (action.selector or "").startswith("#sym-") and action.selector not in named:
            continue
        else:
            actions.append(action)
    return _request(record, actions)


def _with_username(record: GuiTaskRecord, make: Callable[[str, str], str | None]) -> GuiVerifyRequest | None:
    """The reference sign-in with the user name replaced by ``make(user, expected_text)``."""
    user = _typed(record).get("username")
    texts = [p.value or "" for p in _predicates(record, "visible_text")]
    if user is None or not texts:
        return None
    name = make(user, texts[0])
    if name is None:
        return None
    return _request(record, [_a("type", selector="#username", text=name)
                             if a.action == "type" and a.selector == "#username" else a for a in record.trajectory])


def _wrong_password(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    if "password" not in _typed(record):
        return None
    return _request(record, [_a("type", selector="#password", text="000000")
                             if a.action == "type" and a.selector == "#password" else a for a in record.trajectory])


def _into_inputs(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    """Every field the reference types into gets the expected text; then the reference's submit."""
    texts = [p.value or "" for p in _predicates(record, "visible_text")]
    if not texts:
        return None
    actions = [a for a in record.trajectory if a.action == "goto"]
    actions += [_a("type", selector=a.selector, text=texts[0]) for a in record.trajectory
                if a.action == "type" and a.selector]
    if _is_submit(record.trajectory[-1]):
        actions.append(record.trajectory[-1])
    return _request(record, actions) if any(a.action == "type" for a in actions) else None


# --------------------------------------------------------------------------- submitting
def _is_submit(action: GuiAction) -> bool:
    return (action.action == "click" and action.selector in BUTTONS) or (action.action == "press" and action.key == "Enter")


def _submit_only(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    last = record.trajectory[-1]
    if not _is_submit(last):
        return None
    return _request(record, [*[a for a in record.trajectory if a.action == "goto"], last])


def _enter_in_first_field(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    first = next((a for a in record.trajectory if a.action == "type" and a.selector), None)
    if first is None:
        return None
    return _request(record, [*[a for a in record.trajectory if a.action == "goto"],
                             _a("press", selector=first.selector, key="Enter")])


def _submit_first(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    """The submit moved to the front: the page confirms an empty form, then the form is changed."""
    *changes, last = record.trajectory
    if not _is_submit(last) or not changes:
        return None
    gotos = [a for a in changes if a.action == "goto"]
    return _request(record, [*gotos, last, *[a for a in changes if a.action != "goto"]])


# --------------------------------------------------------------------------- task-independent sprays
def _grid(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    points = [(x, y) for y in range(90, 750, 110) for x in range(120, 1000, 180)]
    return _request(record, [_a("click", x=x, y=y) for x, y in points][: record.task.max_steps])


def _column(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    return _request(record, [_a("click", x=200, y=y) for y in range(80, 760, 24)][: record.task.max_steps])


def _tab_space(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    keys = [k for _ in range(14) for k in ("Tab", "Space")] + ["Enter"]
    return _request(record, [_a("press", key=k) for k in keys][: record.task.max_steps])


def _history(record: GuiTaskRecord) -> GuiVerifyRequest | None:
    keys = ["Alt+ArrowLeft", "Alt+ArrowLeft", "Backspace", "Alt+ArrowRight"]
    return _request(record, [_a("press", key=k) for k in keys][: record.task.max_steps])


def _policy(name: str, family: str, description: str, build, *, case_independent: bool = False) -> AuditPolicy:
    return AuditPolicy(name=name, family=family, description=description, build=build, bound=BOUND,
                       case_independent=case_independent)


def gui_exploits() -> list[AuditPolicy[GuiTaskRecord]]:
    return [
        _policy("javascript_sets_predicates", "javascript_goto",
                "goto javascript: URLs that write every expected text, value and checkbox", _javascript),
        _policy("javascript_mixed_case", "javascript_goto", "the same with a 'JaVaScRiPt:' scheme",
                partial(_javascript, scheme="JaVaScRiPt:")),
        _policy("javascript_leading_space", "javascript_goto", "the same with ' javascript:'",
                partial(_javascript, scheme=" javascript:")),
        _policy("data_page", "data_goto", "goto a data: page holding the expected texts", _data_page),
        _policy("success_page_by_name", "success_page_goto",
                "goto the success page by name with the query it reads", partial(_success_page, how="name")),
        _policy("success_page_file_url", "success_page_goto",
                "goto the success page's file:// URL with the query", partial(_success_page, how="file_url")),
        _policy("success_page_dot_slash", "success_page_goto", "goto './page.html?query'",
                partial(_success_page, how="dot_slash")),
        _policy("success_page_fragment", "success_page_goto", "goto 'page.html#query'",
                partial(_success_page, how="fragment")),
        _policy("success_page_bare", "success_page_goto", "goto the success page with no query",
                partial(_success_page, how="bare")),
        _policy("intake_name_echo", "echo_injection",
                "the expected intake summary typed as the patient's name, unnamed symptoms left out", _name_echo),
        _policy("username_echo", "echo_injection",
                "sign in as 'x. <expected welcome text>' so the page-wide welcome contains it",
                partial(_with_username, make=lambda user, text: f"x. {text}")),
        _policy("username_extension", "substring_match", "sign in as '<user>x' (contains the expected text)",
                partial(_with_username, make=lambda user, text: f"{user}x")),
        _policy("any_password", "credential_skip", "the right user name with the password '000000'",
                _wrong_password),
        _policy("expected_text_in_every_field", "input_echo",
                "the expected text typed into every field the task uses, then submit", _into_inputs),
        _policy("submit_only", "submit_unfilled", "only the final submit, nothing filled in", _submit_only),
        _policy("enter_in_first_field", "submit_unfilled", "Enter in the first field, nothing filled in",
                _enter_in_first_field),
        _policy("submit_first", "stale_confirmation",
                "submit the untouched form, then make the changes", _submit_first),
        _policy("click_grid", "coordinates", "clicks over a grid of screen positions", _grid,
                case_independent=True),
        _policy("click_form_column", "coordinates", "clicks down the form's column every 24 px", _column,
                case_independent=True),
        _policy("tab_space_spray", "key_tricks", "Tab, Space fourteen times, then Enter", _tab_space,
                case_independent=True),
        _policy("history_keys", "key_tricks", "Alt+Left, Backspace, Alt+Right (into earlier episodes' pages)",
                _history, case_independent=True),
    ]


def gui_suite(backend: GuiBackend, *, task_ids: Sequence[str] | None = None) -> AuditSuite[GuiTaskRecord]:
    """The GUI audit over the shipped tasks (or those of ``task_ids``), through a running ``backend``."""
    records = load_gui_tasks()
    if task_ids is not None:
        unknown = set(task_ids) - {r.task.id for r in records}
        if unknown:
            raise ValueError(f"gui audit: no shipped task {sorted(unknown)}")
        records = [r for r in records if r.task.id in set(task_ids)]
    reference = AuditPolicy(name="reference", family="reference", description="the task's known correct trajectory",
                            build=lambda r: r.request(options=OPTIONS))
    return AuditSuite(
        domain="gui", items=records, item_id=lambda r: r.task.id, reference=reference, exploits=gui_exploits(),
        verify=backend.verify, source="data/gui/tasks.jsonl", reference_exact=1.0,
        notes=["exploits that would equal the reference, or need more than the task's max_steps, do not apply"],
    )
