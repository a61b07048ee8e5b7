"""``medverifier simulate``: run one consultation against the simulated patient and stream the transcript.

    medverifier simulate --case acs-stemi                       # embedded model plays the doctor
    medverifier simulate --case cases.yaml#my-case --doctor human   # a clinician types the doctor's turns
    medverifier simulate --case acs-stemi --doctor my-model --base-url http://localhost:8000/v1
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

from serving.cli_model import DEVICE_HELP, DTYPE_HELP, placement


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""

    @app.command("simulate")
    def simulate(
        case: str = typer.Option(..., "--case", help="A project case id, a case FILE, or FILE#ID."),
        persona_seed: int = typer.Option(0, "--persona-seed", help="Seed of the patient's persona."),
        doctor: str = typer.Option(
            "embedded", "--doctor", help="'embedded', a checkpoint folder, a model name with --base-url, or 'human'."
        ),
        base_url: str | None = typer.Option(None, "--base-url", help="OpenAI-compatible server for the doctor."),
        patient_model: str = typer.Option("embedded", "--patient", help="The model voicing the patient."),
        device: str | None = typer.Option(None, "--device", envvar="MEDVERIFIER_DEVICE", help=DEVICE_HELP),
        dtype: str | None = typer.Option(None, "--dtype", envvar="MEDVERIFIER_DTYPE", help=DTYPE_HELP),
        max_turns: int = typer.Option(6, "--max-turns", min=1, max=50, help="Doctor turns before the limit."),
        seed: int = typer.Option(0, "--seed", help="Sampling seed of the consultation."),
        premature: bool = typer.Option(
            False, "--premature/--no-premature", help="Treat a diagnosis before any question as premature."
        ),
        output: Path | None = typer.Option(None, "--output", "-o", help="Also write the result as JSON here."),
    ) -> None:
        """Interview a simulated patient (persona + case) and print the consultation as it happens."""
        from patient_sim.cases import CaseFormatError, CaseNotFoundError, find_case

        try:
            the_case = find_case(case)
        except (CaseFormatError, CaseNotFoundError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if base_url and doctor in ("embedded", "human"):
            typer.echo("error: --base-url needs --doctor MODEL_NAME (the model served there)", err=True)
            raise typer.Exit(2)
        if doctor not in ("embedded", "human") and not base_url and not Path(doctor).is_dir():
            typer.echo(f"error: --doctor {doctor!r}: not 'embedded', 'human' or a checkpoint folder", err=True)
            raise typer.Exit(2)

        from patient_sim.human import TerminalDoctor
        from patient_sim.loop import SamplingConfig, consult
        from patient_sim.personas import sample_persona
        from policy.clients import ClientSpec, build_client
        from verifier.llm import LLMError
        from verifier.types import Message

        human = doctor == "human"
        persona = sample_persona(persona_seed, the_case)
        typer.echo(f"case {the_case.id} ({the_case.specialty}, {the_case.setting}); persona: {persona.mbti}, "
                   f"language {persona.language}, recall {persona.recall}, confusion {persona.confusion}")
        if human:
            typer.echo("You are the doctor. Ask one question per line; order tests with 'REQUEST TEST: <name>'; "
                       "finish with 'DIAGNOSIS: <diagnosis>' (end a line with \\ to continue it). Ctrl-D quits.")
        try:
            local = placement(device, dtype)
            patient_client = build_client(ClientSpec(model=patient_model, **local))
            doctor_client = TerminalDoctor() if human else build_client(ClientSpec(model=doctor, base_url=base_url,
                                                                                   **local))
        except (OSError, ValueError) as exc:
            typer.echo(f"error: cannot load a model: {exc}", err=True)
            raise typer.Exit(2) from None

        def show(message: Message) -> None:
            if message.role == "assistant":
                if not human:
                    typer.echo(f"DOCTOR: {message.content}")
            elif message.content.startswith("RESULTS:"):
                typer.echo(message.content)
            else:
                typer.echo(f"PATIENT: {message.content}")

        sampling = SamplingConfig(max_turns=max_turns)
        try:
            result = asyncio.run(
                consult(the_case, persona, doctor_client, patient_client, sampling, seed=seed, on_message=show,
                        premature_diagnosis=premature)
            )
        except (EOFError, KeyboardInterrupt):
            typer.echo("\nconsultation abandoned", err=True)
            raise typer.Exit(1) from None
        except LLMError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(
            f"-- ended: {result.termination_reason} after {result.turns} doctor turns; "
            f"diagnosis: {result.diagnosis or '-'}; tests: {', '.join(result.ordered_tests) or '-'}; "
            f"patient replies: {result.patient_replies} ({result.fallbacks} template fallbacks, "
            f"{result.leaks_caught} leaks caught)"
        )
        if output is not None:
            output.write_text(json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8")
            typer.echo(f"result written to {output}")
