"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for tests.

Replies are scripted: each request pops the next ``Reply`` (status code and text), or uses
``responder(messages)`` when the script is empty. Requests are recorded for assertions.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    error: str = "scripted failure"


@dataclass
class OpenAICompatibleServer:
    model: str = "test-model"
    script: list[Reply] = field(default_factory=list)
    responder: Callable[[list[dict]], str] | None = None
    requests: list[dict] = field(default_factory=list)
    port: int = 0

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict:
            return {"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "test"}]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            body = await request.json()
            self.requests.append(body)
            reply = self.script.pop(0) if self.script else Reply(
                text=self.responder(body["messages"]) if self.responder else "ok"
            )
            if reply.status != 200:
                return JSONResponse(
                    {"error": {"message": reply.error, "type": "test", "code": reply.status}},
                    status_code=reply.status,
                )
            if body.get("stream"):
                return StreamingResponse(_sse(self.model, reply.text), media_type="text/event-stream")
            return {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": len(reply.text.split()), "total_tokens": 9},
            }

        return app

    def __enter__(self) -> OpenAICompatibleServer:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._app(), host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _sse(model: str, text: str):
    for word in text.split(" "):
        chunk = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}],
        }
        yield f"data: {json.dumps(chunk)}\n\n"
    yield "data: [DONE]\n\n"
