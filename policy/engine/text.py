"""From tokens to text: end-of-sequence tokens, stop strings, and streaming without taking text back.

A streamed piece is never withdrawn: text that could be the start of a stop string is held back
until the next token shows it is not, and so is an incomplete multi-byte character (decoded as
U+FFFD). When the request finishes, the rest goes out, so the pieces add up to the completion's text.
"""

from __future__ import annotations

from typing import Any

from policy.engine.request import Request


def eos_ids(tokenizer: Any, model: Any) -> set[int]:
    """Token ids that end a reply: the tokenizer's, the generation config's, and ChatML's ``<|im_end|>``."""
    eos = {tokenizer.eos_token_id}
    gen_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    eos.update(gen_eos if isinstance(gen_eos, list) else [gen_eos])
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if isinstance(im_end, int) and im_end != tokenizer.unk_token_id:
        eos.add(im_end)
    return {i for i in eos if i is not None}


class Detokenizer:
    """Keeps each request's ``text`` and ``finish_reason`` up to date as its tokens arrive."""

    def __init__(self, tokenizer: Any, eos: set[int]) -> None:
        self._tokenizer = tokenizer
        self.eos_ids = eos

    def after_token(self, request: Request, token: int) -> None:
        """``token`` was just appended to ``request.generated``: finish the request or stream its text."""
        if token in self.eos_ids:
            request.finish_reason = "stop"
            request.text = self._tokenizer.decode(request.generated[:-1], skip_special_tokens=True)
            self.emit(request, final=True)
            return
        stop = request.sampling.stop
        if len(request.generated) >= request.sampling.max_tokens:
            request.finish_reason = "length"
        # Without stop strings or a listener the text is only needed at the end: decode it once then.
        if stop or request.on_text is not None or request.finish_reason:
            request.text = self._tokenizer.decode(request.generated, skip_special_tokens=True)
            for s in stop:
                index = request.text.find(s)
                if index >= 0:
                    request.text = request.text[:index]
                    request.finish_reason = "stop"
                    break
            self.emit(request, final=request.finish_reason is not None)

    @staticmethod
    def emit(request: Request, *, final: bool) -> None:
        """Stream new text, holding back a tail that could be the start of a stop string."""
        if request.on_text is None:
            return
        safe = len(request.text)
        if not final:
            hold = max((len(s) - 1 for s in request.sampling.stop), default=0)
            safe = max(request.emitted, len(request.text) - hold)
            if request.text.endswith("\ufffd"):  # an incomplete multi-byte character
                safe = min(safe, len(request.text) - 1)
        if safe > request.emitted:
            request.on_text(request.text[request.emitted : safe])
            request.emitted = safe
