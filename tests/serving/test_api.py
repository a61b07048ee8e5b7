"""The served app on the real embedded model: auth, the openai SDK, consultations, bad input."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from tests.serving.conftest import KEY_A, KEY_B, Server


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/models"), ("GET", "/v1/consultations"), ("POST", "/v1/chat/completions"),
     ("GET", "/metrics"), ("POST", "/v1/verify"), ("POST", "/v1/verify/batch")],
)
@pytest.mark.parametrize("key", [None, "wrong-key"])
def test_every_endpoint_but_healthz_needs_a_valid_key(live: Server, method: str, path: str, key: str | None) -> None:
    with live.client(key) as http:
        response = http.request(method, path, json={})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["type"] == "authentication_error"


def test_healthz_is_open(live: Server) -> None:
    with live.client(None) as http:
        assert http.get("/healthz").json()["status"] == "ok"


def test_openai_sdk_sync_and_streaming(live: Server) -> None:
    sdk = openai.OpenAI(base_url=f"{live.url}/v1", api_key=KEY_A, max_retries=0)
    model = sdk.models.list().data[0].id
    assert model == "SmolLM2-135M-Instruct"
    messages = [{"role": "user", "content": "Name one symptom of the flu."}]
    completion = sdk.chat.completions.create(model=model, messages=messages, max_tokens=8, temperature=0)
    text = completion.choices[0].message.content
    assert text and text.strip()
    assert 1 <= completion.usage.completion_tokens <= 8
    assert completion.choices[0].finish_reason in {"stop", "length"}

    chunks = list(sdk.chat.completions.create(model=model, messages=messages, max_tokens=8, temperature=0,
                                              stream=True, stream_options={"include_usage": True}))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text  # greedy decoding: the same reply streamed and not
    assert chunks[-2].choices[0].finish_reason == completion.choices[0].finish_reason
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage.prompt_tokens == completion.usage.prompt_tokens
    assert abs(usage.completion_tokens - completion.usage.completion_tokens) <= 1  # the end-of-text token

    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{live.url}/v1", api_key="nope", max_retries=0).models.list()
    with pytest.raises(openai.NotFoundError, match="not served here"):
        sdk.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=4)


def test_consultation_lifecycle_and_tenant_isolation(live: Server) -> None:
    from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT

    assert live.app.state.consultations.system_prompt == DOCTOR_SYSTEM_PROMPT  # the agent's own prompt
    with live.client(KEY_A) as alice, live.client(KEY_B) as bob:
        created = alice.post("/v1/consultations", json={"title": "chest pain"})
        assert created.status_code == 201
        cid = created.json()["id"]
        reply = alice.post(f"/v1/consultations/{cid}/messages",
                           json={"content": "55-year-old man with chest pain.", "max_tokens": 10})
        assert reply.status_code == 200, reply.text
        answer = reply.json()["message"]
        assert answer["role"] == "assistant" and answer["content"]

        history = alice.get(f"/v1/consultations/{cid}").json()
        assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
        assert history["messages"][1]["content"] == answer["content"]
        assert history["turns"] == 1
        assert cid in [s["id"] for s in alice.get("/v1/consultations").json()["data"]]

        # Bob cannot see, list, write to or delete Alice's consultation: it looks absent.
        assert bob.get(f"/v1/consultations/{cid}").status_code == 404
        assert cid not in [s["id"] for s in bob.get("/v1/consultations").json()["data"]]
        assert bob.post(f"/v1/consultations/{cid}/messages", json={"content": "hi"}).status_code == 404
        assert bob.delete(f"/v1/consultations/{cid}").status_code == 404

        assert alice.delete(f"/v1/consultations/{cid}").status_code == 204
        assert alice.get(f"/v1/consultations/{cid}").status_code == 404


def test_consultation_reply_streams_as_server_sent_events(live: Server) -> None:
    with live.client() as http:
        cid = http.post("/v1/consultations", json={}).json()["id"]
        events: list[tuple[str, dict]] = []
        with http.stream("POST", f"/v1/consultations/{cid}/messages", json={"content": "I have a cough.",
                         "max_tokens": 10}, headers={"Accept": "text/event-stream"}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            name = None
            for line in response.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    events.append((name, json.loads(line[6:])))
        kinds = [k for k, _ in events]
        assert kinds[-1] == "done" and "delta" in kinds
        streamed = "".join(d["text"] for k, d in events if k == "delta").strip()
        assert streamed == events[-1][1]["message"]["content"]
        stored = http.get(f"/v1/consultations/{cid}").json()["messages"]
        assert stored[-1]["content"] == streamed


BAD_REQUESTS = [
    # (description, path, body bytes, expected status, a word the message must contain)
    ("malformed JSON", "/v1/chat/completions", b'{"model": "x", "messages": [', 400, "malformed JSON"),
    ("not an object", "/v1/consultations/abc/messages", b"[1, 2]", 422, "body"),
    ("wrong type", "/v1/chat/completions",
     b'{"model": "SmolLM2-135M-Instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": "many"}',
     422, "max_tokens"),
    ("bad role", "/v1/chat/completions",
     b'{"model": "SmolLM2-135M-Instruct", "messages": [{"role": "doctor", "content": "hi"}]}', 422, "messages.0.role"),
    ("missing field", "/v1/chat/completions", b'{"model": "SmolLM2-135M-Instruct"}', 422, "messages"),
    ("n > 1", "/v1/chat/completions",
     b'{"model": "SmolLM2-135M-Instruct", "messages": [{"role": "user", "content": "hi"}], "n": 2}', 422, "n"),
    ("max_tokens over the limit", "/v1/chat/completions",
     b'{"model": "SmolLM2-135M-Instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 999999}',
     422, "max_tokens"),
    ("empty message", "/v1/consultations", b'{"title": 5}', 422, "title"),
    ("unknown verify domain", "/v1/verify", b'{"domain": "astrology", "task": {}, "trajectory": []}', 422, "domain"),
]


@pytest.mark.parametrize(("what", "path", "body", "status", "word"), BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS])
def test_bad_input_gets_a_4xx_naming_the_problem(live: Server, what: str, path: str, body: bytes, status: int,
                                                 word: str) -> None:
    with live.client() as http:
        response = http.post(path, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status, response.text
    message = response.json()["error"]["message"]
    assert word in message, message


def test_oversize_body_is_413_with_or_without_content_length(live: Server) -> None:
    limit = live.app.state.settings.max_body_bytes
    big = json.dumps({"content": "x" * (limit + 10)}).encode()
    with live.client() as http:
        response = http.post("/v1/consultations", content=big, headers={"Content-Type": "application/json"})
        assert response.status_code == 413
        assert "limit" in response.json()["error"]["message"]
        chunked = http.post("/v1/consultations", content=iter([big[:1000], big[1000:]]),
                            headers={"Content-Type": "application/json"})
        assert chunked.status_code == 413


def test_unknown_route_and_method_use_the_error_model(live: Server) -> None:
    with live.client() as http:
        missing = http.get("/v1/nothing-here")
        wrong_method = http.put("/v1/models")
    assert missing.status_code == 404 and missing.json()["error"]["message"]
    assert wrong_method.status_code == 405 and wrong_method.json()["error"]["message"]


def test_metrics_report_requests_queue_and_tokens(live: Server) -> None:
    with live.client() as http:
        http.get("/v1/models")
        # tokens generated just now: the rate is over the last 30 s, and the module's other tests may have run long
        # before, or on the other pytest-xdist worker
        reply = http.post("/v1/chat/completions", json={"model": "SmolLM2-135M-Instruct", "max_tokens": 4,
                                                         "messages": [{"role": "user", "content": "hi"}]})
        assert reply.status_code == 200 and reply.json()["usage"]["completion_tokens"] > 0
        text = http.get("/metrics").text
    assert 'medverifier_http_requests_total{method="GET",route="/v1/models",status="200"}' in text
    assert "medverifier_queue_depth" in text
    rate = next(line for line in text.splitlines() if line.startswith("medverifier_generated_tokens_per_second"))
    assert float(rate.split()[-1]) > 0
    assert "medverifier_http_request_duration_seconds_bucket" in text
    assert isinstance(httpx.get(f"{live.url}/healthz").json(), dict)


def test_a_form_encoded_body_is_told_to_send_json(live: Server) -> None:
    with live.client() as http:  # what `curl -d '{...}'` sends without -H 'Content-Type: application/json'
        response = http.post("/v1/consultations", content=b'{"title": "x"}',
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 415
    assert "Content-Type: application/json" in response.json()["error"]["message"]
