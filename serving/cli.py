"""The ``medverifier`` command line.

Each group of commands lives in its own ``serving/cli_*.py`` module with a ``register(app)``
function; heavy imports (torch, transformers, ray) happen inside the commands so ``--help`` is fast.
"""

from __future__ import annotations

import importlib
import logging
import os

import typer

app = typer.Typer(
    name="medverifier",
    help="A medical consultation agent and its verifier: simulate, grade, evaluate, train, serve.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

_COMMAND_MODULES = (
    "serving.cli_model",
    "serving.cli_sim",
    "serving.cli_rubric",
    "serving.cli_eval",
    "serving.cli_train",
    "serving.cli_serve",
    "serving.cli_audit",
    "serving.cli_reviews",
)


@app.callback()
def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log at DEBUG level.")) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else os.environ.get("MEDVERIFIER_LOG_LEVEL", "WARNING"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


for _name in _COMMAND_MODULES:
    importlib.import_module(_name).register(app)


if __name__ == "__main__":
    app()
