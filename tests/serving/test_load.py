"""Behaviour under load: the bounded queue (503 + Retry-After), timeouts (504), shared batches."""

from __future__ import annotations

import asyncio
import json

import httpx

from serving.app import create_app
from tests.serving.conftest import KEY_A, ScriptedClient, Server, make_settings, run_server

CHAT = {"model": "scripted", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 4}


async def test_full_queue_answers_503_with_retry_after_then_recovers(tmp_path) -> None:
    client = ScriptedClient(delay_s=1.5)
    app = create_app(make_settings(tmp_path, queue_size=2, retry_after_s=3), client=client)
    headers = {"Authorization": f"Bearer {KEY_A}"}
    with run_server(app) as server:
        async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as http:
            busy = [asyncio.create_task(http.post("/v1/chat/completions", json=CHAT)) for _ in range(2)]
            while app.state.admission.in_flight < 2:
                await asyncio.sleep(0.01)
            refused = await http.post("/v1/chat/completions", json=CHAT)
            refused_stream = await http.post("/v1/chat/completions", json={**CHAT, "stream": True})
            assert refused.status_code == 503 and refused_stream.status_code == 503
            assert refused.headers["retry-after"] == "3"
            assert "capacity" in refused.json()["error"]["message"]
            assert [r.status_code for r in await asyncio.gather(*busy)] == [200, 200]
            again = await http.post("/v1/chat/completions", json=CHAT)
            assert again.status_code == 200
            metrics = (await http.get("/metrics")).text
    assert client.calls == 3
    assert 'medverifier_rejected_requests_total{reason="queue_full"} 2.0' in metrics


def test_slow_generation_times_out_with_504_and_keeps_the_clinicians_message(tmp_path) -> None:
    app = create_app(make_settings(tmp_path, request_timeout_s=0.3), client=ScriptedClient(delay_s=5))
    with run_server(app) as server, server.client() as http:
        response = http.post("/v1/chat/completions", json=CHAT)
        assert response.status_code == 504
        assert "0.3s" in response.json()["error"]["message"]

        cid = http.post("/v1/consultations", json={"title": "slow"}).json()["id"]
        response = http.post(f"/v1/consultations/{cid}/messages", json={"content": "fever for 3 days"})
        assert response.status_code == 504
        with http.stream("POST", f"/v1/consultations/{cid}/messages?stream=true",
                         json={"content": "and a rash"}) as streamed:
            lines = [line for line in streamed.iter_lines() if line]
        assert lines[0] == "event: error"
        assert json.loads(lines[1][6:])["error"]["code"] == "timeout"
        # Nothing the clinician typed is lost, even though no reply came.
        stored = http.get(f"/v1/consultations/{cid}").json()["messages"]
        assert [m["content"] for m in stored] == ["fever for 3 days", "and a rash"]
        assert app.state.admission.in_flight == 0


async def test_concurrent_requests_share_batches_on_the_local_model(live: Server, local_client) -> None:
    before, steps_before = len(local_client.stats.admitted), len(local_client.stats.batch_sizes)
    headers = {"Authorization": f"Bearer {KEY_A}"}
    body = {"model": local_client.model, "max_tokens": 4, "temperature": 0}
    async with httpx.AsyncClient(base_url=live.url, headers=headers, timeout=120) as http:
        responses = await asyncio.gather(*[
            http.post("/v1/chat/completions", json={**body, "messages": [{"role": "user", "content": f"Say {i}."}]})
            for i in range(6)
        ])
    assert [r.status_code for r in responses] == [200] * 6
    assert sum(local_client.stats.admitted[before:]) == 6
    steps = local_client.stats.batch_sizes[steps_before:]
    assert max(steps) > 1, steps  # at least two requests decoded in one forward pass
