"""The engine's seams: the streamed-completion capability and the error a closed client raises.

``StreamingChatClient`` (declared in ``verifier.llm``, the hub, with the other client capabilities) is
what the OpenAI-compatible server needs for a streamed reply: the text as it is decoded, then the
request's own ``Completion`` (its tokens, ``finish_reason`` and usage), so nothing has to be
re-encoded or guessed. ``LocalChatClient.stream_completion`` and ``OpenAIChatClient.stream_completion``
have this shape; ``serving.routes_common.stream_completion`` uses any client that has it.
"""

from __future__ import annotations

from verifier.llm import StreamingChatClient

__all__ = ["ClientClosedError", "StreamingChatClient"]


class ClientClosedError(RuntimeError):
    """The client was closed while the request was waiting or decoding."""
