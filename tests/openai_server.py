"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for tests.

Replies are scripted: each request pops the next ``Reply`` (status code and text), or uses
``responder(messages)`` when the script is empty. Requests are recorded for assertions. A "token" is a
word: a reply longer than ``max_tokens`` words is cut there with ``finish_reason: "length"``; streams
end with the finish reason, and with OpenAI's usage chunk when ``stream_options.include_usage`` is set.
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
            words = reply.text.split(" ")
            limit = body.get("max_tokens") or len(words)
            text, finish = " ".join(words[:limit]), "length" if len(words) > limit else "stop"
            usage = {"prompt_tokens": 5, "completion_tokens": min(limit, len(words)),
                     "total_tokens": 5 + min(limit, len(words))}
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                return StreamingResponse(_sse(self.model, text, finish, usage if include_usage else None),
                                         media_type="text/event-stream")
            return {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
                ],
                "usage": usage,
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


def _sse(model: str, text: str, finish: str, usage: dict | None):
    def chunk(choices: list[dict], **extra: object) -> str:
        payload = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
                   "model": model, "choices": choices, **extra}
        return f"data: {json.dumps(payload)}\n\n"

    for word in text.split(" "):
        yield chunk([{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}])
    yield chunk([{"index": 0, "delta": {}, "finish_reason": finish}])
    if usage is not None:
        yield chunk([], usage=usage)
    yield "data: [DONE]\n\n"
