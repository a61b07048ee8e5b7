"""The judge over real transports: an OpenAI-compatible HTTP server on 127.0.0.1, and the embedded model.

The HTTP judge is a tiny FastAPI app served by uvicorn in a thread; it decides by a visible rule (the
criterion's keyword appears in the graded response), so the expected verdicts are known while the
whole path — prompt rendering, openai SDK, HTTP, parsing, scoring — is real.
"""

from __future__ import annotations

import re
import socket
import threading
import time

import pytest
import uvicorn
from fastapi import FastAPI

from verifier.graders import HybridGrader, JudgeCache, JudgeGrader
from verifier.llm import OpenAIChatClient
from verifier.scoring import example_score
from verifier.types import Message, RubricItem


def make_app(log: list[str]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(body: dict) -> dict:
        prompt = body["messages"][-1]["content"]
        log.append(prompt)
        response = prompt.split("# Conversation", 1)[1].split("# Rubric item", 1)[0].rsplit("assistant:", 1)[1]
        criterion = re.search(r"\[-?\d+\] (.+)", prompt.split("# Rubric item", 1)[1]).group(1)
        keyword = criterion.split()[-1].strip(".").lower()
        met = keyword in response.lower()
        if "garbled" in criterion:
            content = "I am not sure what you mean"
        else:
            content = f'```json\n{{"explanation": "keyword {keyword}", "criteria_met": {str(met).lower()}}}\n```'
        return {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 20, "total_tokens": len(prompt) // 4 + 20},
        }

    return app


@pytest.fixture(scope="module")
def judge_server():
    log: list[str] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(make_app(log), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the judge server did not start"
    yield f"http://127.0.0.1:{port}/v1", log
    server.should_exit = True
    thread.join(timeout=5)


CONVO = [
    Message(role="user", content="My child has a high fever and a stiff neck."),
    Message(role="assistant", content="Go to the emergency department now; this could be meningitis."),
]
ITEMS = [
    RubricItem(criterion="Mentions meningitis", points=5, tags=["axis:accuracy"]),
    RubricItem(criterion="Recommends paracetamol", points=3, tags=["axis:completeness"]),
    RubricItem(criterion="Says it is nothing", points=-5, tags=["axis:accuracy"]),
    RubricItem(criterion="A garbled item", points=2, tags=["axis:completeness"]),
]


async def test_judge_grader_over_http(judge_server, tmp_path) -> None:
    base_url, log = judge_server
    client = OpenAIChatClient(base_url, "http-judge", max_retries=0)
    grader = JudgeGrader(client, max_retries=1, cache=JudgeCache(tmp_path / "c.sqlite"))
    results = await HybridGrader(grader).grade(CONVO, ITEMS)
    assert [r.met for r in results] == [True, False, False, None]
    assert results[0].explanation == "keyword meningitis" and results[0].grader == "judge:http-judge"
    assert len(log) == 3 + 2  # the garbled item was asked twice (one retry), then left unscored
    assert example_score(results) == pytest.approx(5 / 8)
    assert grader.stats.prompt_tokens > 0
    await HybridGrader(grader).grade(CONVO, ITEMS)
    assert len(log) == 5 + 2  # parsed verdicts came from the cache; only the garbled item was asked again
    await client.aclose()


async def test_unreachable_judge_is_unscored_not_failed() -> None:
    client = OpenAIChatClient("http://127.0.0.1:9/v1", "nobody", max_retries=0, timeout_s=2)
    results = await JudgeGrader(client, max_retries=1).grade(CONVO, ITEMS[:2])
    assert [r.met for r in results] == [None, None]
    assert "judge call failed" in results[0].explanation
    await client.aclose()


@pytest.mark.slow
async def test_embedded_model_batched_judge_never_crashes(local_client) -> None:
    grader = JudgeGrader(local_client, batched=True, max_retries=0, max_tokens=8)
    results = await grader.grade(CONVO, ITEMS[:3])
    assert len(results) == 3
    for result, item in zip(results, ITEMS[:3], strict=True):
        assert result.criterion == item.criterion and result.met in (True, False, None)
        assert result.met is not None or result.explanation.startswith("unscored")
    assert grader.stats.calls == 1 and grader.stats.prompt_tokens > 200
    assert grader.stats.unscored == sum(1 for r in results if r.met is None)
