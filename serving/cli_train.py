"""``medverifier train``: a supervised warm start, then staged GRPO (rule → rubric → multi-turn), on TRL.

    medverifier train --stage rule --config data/train/rule.yaml --output-dir runs/rule
    medverifier train --stages sft,rule,rubric,multiturn --output-dir runs/all  # chains checkpoints
    medverifier train --stage rule --output-dir runs/rule --resume                # after a kill

GPU machines: ``--device cuda`` and, for generation with vLLM, ``--use-vllm`` (TRL's colocate mode)
or ``--use-vllm --vllm-mode server --vllm-server-base-url http://HOST:8000`` (a ``trl vllm-serve``
process). Any other field of a stage's TRL config (``trl.SFTConfig`` for ``sft``, ``trl.GRPOConfig`` for the
others): ``--set learning_rate=2e-6`` (repeatable; in a chain, each stage takes the fields it has).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer


def _parse_sets(values: list[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"--set {value!r}: expected KEY=VALUE", param_hint="--set")
        out[key.strip()] = yaml.safe_load(raw)
    return out


def train(
    stage: str | None = typer.Option(None, help="One stage: sft, rule, rubric or multiturn."),
    stages: str | None = typer.Option(None, help="Comma-separated stages to chain, e.g. sft,rule,rubric,multiturn."),
    config: list[Path] = typer.Option(
        [], "--config", help="Stage YAML (repeat per stage with --stages); default data/train/<stage>.yaml."
    ),
    output_dir: Path = typer.Option(Path("runs/train"), help="Run folder (one sub-folder per stage when chaining)."),
    model: str | None = typer.Option(None, help="Start model: `embedded` or a checkpoint folder (default: YAML)."),
    resume: bool = typer.Option(False, help="Resume from the last checkpoint in the output folder."),
    max_steps: int | None = typer.Option(None, min=1, help="Override the YAML's max_steps."),
    device: str = typer.Option("cpu", help="cpu, cuda or auto."),
    use_vllm: bool = typer.Option(False, help="Generate with vLLM (GPU only; TRL's use_vllm)."),
    vllm_mode: str | None = typer.Option(None, help="colocate or server."),
    vllm_server_base_url: str | None = typer.Option(None, help="URL of a `trl vllm-serve` server."),
    set_: list[str] = typer.Option([], "--set", help="A field of the stage's TRL config: KEY=VALUE (repeatable)."),
) -> None:
    """Train the policy (warm start, staged GRPO); metrics go to OUTPUT_DIR/metrics.jsonl."""
    if device not in ("cpu", "cuda", "auto"):
        typer.echo(f"error: --device {device!r}: use cpu, cuda or auto", err=True)
        raise typer.Exit(2)
    if device != "cpu":  # a GPU asked for where torch sees none: say so in a second, before TRL is imported
        from policy.engine.device import DeviceError, resolve_device

        try:
            resolve_device(device)
        except DeviceError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    from policy.stage_config import STAGES, StageConfigError, default_config_path, load_stage_config
    from policy.stages import run_stages

    if (stage is None) == (stages is None):
        typer.echo("error: give exactly one of --stage or --stages", err=True)
        raise typer.Exit(2)
    names = [stage] if stage else [s.strip() for s in (stages or "").split(",") if s.strip()]
    unknown = [n for n in names if n not in STAGES]
    if unknown or not names:
        typer.echo(f"error: unknown stage(s) {unknown or names}; choose from {', '.join(STAGES)}", err=True)
        raise typer.Exit(2)
    if config and len(config) != len(names):
        typer.echo(f"error: {len(config)} --config file(s) for {len(names)} stage(s)", err=True)
        raise typer.Exit(2)
    try:
        overrides = _parse_sets(set_)
    except typer.BadParameter as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if max_steps is not None:
        overrides["max_steps"] = max_steps
    if use_vllm:
        overrides["use_vllm"] = True
        if vllm_mode:
            overrides["vllm_mode"] = vllm_mode
        if vllm_server_base_url:
            overrides["vllm_server_base_url"] = vllm_server_base_url
    if device != "cpu":
        overrides.setdefault("use_cpu", False)
    plan = []
    try:
        for i, name in enumerate(names):
            cfg = load_stage_config(config[i] if config else default_config_path(name))  # type: ignore[arg-type]
            if cfg.stage != name:
                raise StageConfigError(f"{config[i]}: is a {cfg.stage!r} config, not {name!r}")
            plan.append((cfg, output_dir / name if len(names) > 1 else output_dir))
        results = run_stages(plan, model=model, resume=resume, overrides=overrides, device=device)
    except (StageConfigError, FileNotFoundError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for result in results:
        typer.echo(json.dumps(result.model_dump()))


def register(app: typer.Typer) -> None:
    """Add ``medverifier train``."""
    app.command("train")(train)
