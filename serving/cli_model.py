"""``medverifier model prepare|info`` and ``medverifier chat``."""

from __future__ import annotations

import asyncio
import sys

import typer

model_app = typer.Typer(help="Prepare and inspect the local model.", no_args_is_help=True)

DEVICE_HELP = "Where local models run: cpu, cuda, cuda:N or auto (CUDA when there is a GPU). Default: cpu."
DTYPE_HELP = "Local models' precision: float32, bfloat16, float16 or auto (bfloat16/float16 on a GPU). Default: float32."


def placement(device: str | None, dtype: str | None) -> dict[str, str | None]:
    """``--device``/``--dtype`` checked (exit 2 naming the bad value), as ``ClientSpec`` keywords."""
    from policy.engine.device import check_device, check_dtype

    try:
        checked = {"device": check_device(device), "dtype": check_dtype(dtype)}
    except ValueError as exc:
        typer.echo(f"error: --{exc}", err=True)
        raise typer.Exit(2) from exc
    if device and device.startswith("cuda"):  # a GPU asked for where there is none: say so before any case runs
        from policy.engine.device import DeviceError, resolve_device

        try:
            resolve_device(device)
        except DeviceError as exc:
            typer.echo(f"error: --device {device}: {exc}", err=True)
            raise typer.Exit(2) from exc
    return checked


@model_app.command("prepare")
def prepare(force: bool = typer.Option(False, help="Convert again even if the checkpoint exists.")) -> None:
    """Convert the embedded SmolLM2-135M-Instruct GGUF to a float32 checkpoint (once)."""
    from policy.model import ModelNotAvailableError, prepare_embedded

    try:
        path = prepare_embedded(force=force)
    except ModelNotAvailableError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"embedded model ready: {path}")


@model_app.command("info")
def info(model: str = typer.Option("embedded", help="`embedded` or a local checkpoint folder.")) -> None:
    """Show where the model lives, its size and its context length."""
    import time

    from policy.model import ModelNotAvailableError, load_model

    started = time.perf_counter()
    try:
        loaded = load_model(model)
    except ModelNotAvailableError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    params = sum(p.numel() for p in loaded.model.parameters())
    config = loaded.model.config
    typer.echo(f"name:        {loaded.name}")
    typer.echo(f"path:        {loaded.path}")
    typer.echo(f"parameters:  {params / 1e6:.1f}M ({next(loaded.model.parameters()).dtype})")
    typer.echo(f"context:     {getattr(config, 'max_position_embeddings', '?')} tokens")
    typer.echo(f"vocabulary:  {len(loaded.tokenizer)} tokens")
    typer.echo(f"load time:   {time.perf_counter() - started:.1f}s")


def chat(
    model: str = typer.Option("embedded", help="`embedded`, a checkpoint folder, or the served model name."),
    base_url: str | None = typer.Option(None, help="An OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"),
    api_key: str | None = typer.Option(None, envvar="OPENAI_API_KEY", help="API key for --base-url."),
    device: str | None = typer.Option(None, envvar="MEDVERIFIER_DEVICE", help=DEVICE_HELP),
    dtype: str | None = typer.Option(None, envvar="MEDVERIFIER_DTYPE", help=DTYPE_HELP),
    system: str | None = typer.Option(None, help="A system prompt."),
    max_tokens: int = typer.Option(256, min=1),
    temperature: float = typer.Option(0.7, min=0.0),
) -> None:
    """Chat with the model in the terminal (replies stream as they are generated; Ctrl-D quits)."""
    from pydantic import SecretStr

    from policy.clients import ClientSpec, build_client
    from policy.model import ModelNotAvailableError
    from verifier.llm import ClosableClient, LLMError, StreamingClient
    from verifier.types import Message

    spec = ClientSpec(model=model, base_url=base_url, api_key=SecretStr(api_key) if api_key else None,
                      **placement(device, dtype))
    try:
        client = build_client(spec)
    except (ModelNotAvailableError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    history: list[Message] = [Message(role="system", content=system)] if system else []

    async def reply() -> str:
        if not isinstance(client, StreamingClient):
            text = (await client.complete(history, max_tokens=max_tokens, temperature=temperature)).text
            sys.stdout.write(text + "\n")
            return text
        parts: list[str] = []
        async for piece in client.stream(history, max_tokens=max_tokens, temperature=temperature):
            parts.append(piece)
            sys.stdout.write(piece)
            sys.stdout.flush()
        sys.stdout.write("\n")
        return "".join(parts)

    async def session() -> None:
        try:
            await loop()
        finally:  # stop the decoding thread (or close connections) before the interpreter exits
            if isinstance(client, ClosableClient):
                await client.aclose()

    async def loop() -> None:
        # One event loop for the whole session: clients keep connections and batch queues on it.
        typer.echo(f"chatting with {client.model} (Ctrl-D to quit)")
        while True:
            try:
                text = (await asyncio.to_thread(input, "you> ")).strip()
            except (EOFError, KeyboardInterrupt):
                typer.echo("")
                return
            if not text:
                continue
            history.append(Message(role="user", content=text))
            sys.stdout.write("model> ")
            try:
                answer = await reply()
            except LLMError as exc:
                typer.echo(f"\nerror: {exc}", err=True)
                history.pop()
                continue
            history.append(Message(role="assistant", content=answer))

    asyncio.run(session())


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")
    app.command("chat")(chat)
