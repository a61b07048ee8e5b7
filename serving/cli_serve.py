"""``medverifier serve``: the FastAPI app under uvicorn.

Options override the ``MEDVERIFIER_*`` environment (see ``serving.settings.Settings``). With no API
key configured anywhere, a random one is generated for this run and printed once.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import typer

from serving.cli_model import DEVICE_HELP, DTYPE_HELP


def serve(
    model: str = typer.Option("embedded", help="`embedded`, a local checkpoint folder, or the model name at --base-url."),
    base_url: str | None = typer.Option(None, help="Serve a model behind an OpenAI-compatible server instead."),
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, min=1, max=65535),
    db: Path | None = typer.Option(None, help="SQLite file for consultations (default under $MEDVERIFIER_HOME)."),
    api_key: list[str] = typer.Option([], help="An accepted API key (repeatable); prefer MEDVERIFIER_API_KEY_HASHES."),
    queue_size: int | None = typer.Option(None, min=1, help="Model-backed requests admitted at once (more get 503)."),
    timeout: float | None = typer.Option(None, min=0.1, help="Per-request generation limit in seconds (504 after)."),
    max_batch_size: int | None = typer.Option(None, min=1, help="Largest decoding batch of the local model."),
    device: str | None = typer.Option(None, help=DEVICE_HELP + " (env MEDVERIFIER_DEVICE)"),
    dtype: str | None = typer.Option(None, help=DTYPE_HELP + " (env MEDVERIFIER_DTYPE)"),
    judge_model: str | None = typer.Option(
        None, help="The judge for rubric items without a rule check: `embedded`, a checkpoint folder, or the model "
        "name at --judge-base-url (key: MEDVERIFIER_JUDGE_API_KEY). Default: none, rule checks only."),
    judge_base_url: str | None = typer.Option(None, help="An OpenAI-compatible server for the judge."),
    rubric_model: str | None = typer.Option(
        None, help="The model behind LLM rubrics, like --judge-model (key: MEDVERIFIER_RUBRIC_API_KEY). "
        "Default: none, case-grounded rubrics only."),
    rubric_base_url: str | None = typer.Option(None, help="An OpenAI-compatible server for the rubric model."),
    log_level: str = typer.Option("info", help="uvicorn's log level."),
) -> None:
    """Serve consultations, OpenAI-compatible chat, the verifier API and the web page."""
    from pydantic import ValidationError

    from policy.model import ModelNotAvailableError, resolve_model_path
    from serving.settings import Settings

    overrides: dict[str, object] = {"model": model, "base_url": base_url}
    for name, value in (("db_path", db), ("queue_size", queue_size), ("request_timeout_s", timeout),
                        ("max_batch_size", max_batch_size), ("device", device), ("dtype", dtype),
                        ("judge_model", judge_model),
                        ("judge_base_url", judge_base_url), ("rubric_model", rubric_model),
                        ("rubric_base_url", rubric_base_url)):
        if value is not None:
            overrides[name] = value
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        where = f"setting {field} (env MEDVERIFIER_{field.upper()})" if field else "settings"
        typer.echo(f"error: {where}: {first['msg']}", err=True)
        raise typer.Exit(2) from exc
    if api_key:
        settings.api_keys = [*settings.api_keys, *api_key]
    if not settings.key_hashes():
        generated = secrets.token_urlsafe(24)
        settings.api_keys = [generated]
        typer.echo(f"no API key configured; generated one for this run: {generated}")
    try:
        for spec in (settings.policy(), settings.judge(), settings.rubric()):  # fail fast, before the heavy imports
            if spec is not None and spec.kind == "local":  # a plug-in (py:…) client is built, not found
                resolve_model_path(spec.model)
        import uvicorn

        from serving.app import create_app

        app = create_app(settings)
    except (ModelNotAvailableError, ValueError) as exc:  # ValueError: e.g. --device cuda where there is none
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"medverifier serving {settings.model} on http://{host}:{port}/  (judge: "
               f"{settings.judge_model or 'none, rule checks only'}; consultations: {settings.resolved_db_path()})")
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
