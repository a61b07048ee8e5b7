"""Does training raise held-out reward? Base embedded model vs after K GRPO steps, side by side.

Rule stage: the held-out rule items (cases never trained on), greedy answers, the rule reward.
Multi-turn stage (``--multiturn-steps > 0``): held-out cases, one consultation each with the same
seeds before and after, the verifier's rule-graded consultation score.
Prints ONE JSON line: base and trained means, the paired difference with a 95% interval (normal
approximation over items), and wall time per training step.

    python bench/train_gain.py                      # full: K=28 rule steps (~30 min), 80 held-out items
    python bench/train_gain.py --steps 4 --heldout 16 --max-tokens 32    # a short run
    python bench/train_gain.py --steps 0 --multiturn-steps 6              # the multi-turn stage only

Training settings default to data/train/rule.yaml, so the figures are those of the product's config,
including its validation (the kept model is the best-validated step; train_s includes val_s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def paired(base: list[float], trained: list[float]) -> dict[str, float]:
    diffs = [t - b for b, t in zip(base, trained, strict=True)]
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
    return {"diff": round(mean, 4), "ci95_low": round(mean - half, 4), "ci95_high": round(mean + half, 4)}


async def rule_eval(model_spec: str, items: list, max_tokens: int, weights) -> tuple[list[float], dict[str, object]]:
    """Greedy held-out rewards (the product's reward weights), plus the terms apart: format rate and
    answer accuracy; ``any_line`` figures count any ``ANSWER:`` line as formatted (the format term
    before MCQ answers had to be letters), for comparison with earlier runs."""
    from policy.engine.client import LocalChatClient
    from policy.rewards import answer_formatted, extract_answer, rule_match, rule_score

    # Its own client, not policy.clients' cached one: each checkpoint is loaded, measured and closed.
    client = LocalChatClient.from_spec(model_spec, max_batch_size=16)
    outs = await asyncio.gather(*(client.complete(i.prompt, max_tokens=max_tokens, temperature=0.0) for i in items))
    await client.aclose()
    pairs = list(zip(items, outs, strict=True))
    scores = [rule_score(o.text, i.accepted, i.letter, weights) for i, o in pairs]
    any_line = weights.model_copy(update={"format_letter": False})
    terms: dict[str, object] = {
        "format_rate": round(statistics.fmean(
            answer_formatted(o.text, i.letter, letter_required=weights.format_letter) for i, o in pairs), 4),
        "accuracy": round(statistics.fmean(rule_match(o.text, i.accepted, i.letter) for i, o in pairs), 4),
        "any_line_format_rate": round(statistics.fmean(extract_answer(o.text) is not None for _, o in pairs), 4),
        "any_line_reward": round(statistics.fmean(rule_score(o.text, i.accepted, i.letter, any_line) for i, o in pairs), 4),
    }
    kinds: dict[str, list[bool]] = {}
    for item, out in pairs:  # where the answers are right: diagnosis/next-step/urgency MCQs, short answers
        kinds.setdefault(item.kind, []).append(rule_match(out.text, item.accepted, item.letter))
    terms["accuracy_by_kind"] = {kind: round(statistics.fmean(hits), 4) for kind, hits in sorted(kinds.items())}
    return scores, terms


async def consult_eval(model_spec: str, cases: list, turns: int, turn_tokens: int) -> list[float]:
    from policy.clients import ClientSpec, build_client
    from policy.engine.client import LocalChatClient
    from policy.graders import make_grader
    from policy.model import load_model
    from policy.rollout import MultiTurnRollout, RolloutConfig
    from rubric_gen.case_rubric import build_case_rubric
    from verifier.backends.medical import grade_conversation

    loaded = load_model(model_spec)
    patient = build_client(ClientSpec(model="embedded", max_batch_size=16))
    config = RolloutConfig(max_turns=turns, turn_tokens=turn_tokens, max_completion_tokens=turns * (turn_tokens + 48),
                           temperature=0.0, patient_max_tokens=24)
    rollout = MultiTurnRollout(cases, patient, loaded, config)
    rows = rollout.dataset_rows(seed=0)
    policy = LocalChatClient(loaded, max_batch_size=16)
    trajs = await rollout.run([r["prompt"] for r in rows], policy, seed=0)
    grader = make_grader(None, "rule")
    scores = []
    for case, traj in zip(cases, trajs, strict=True):
        result = await grade_conversation(traj.transcript, build_case_rubric(case).items, grader)
        scores.append(result.reward)
    return scores


def train(stage: str, steps: int, out: Path, extra: dict) -> tuple[str, float, dict[str, object]]:
    from policy.stage_config import default_config_path, load_stage_config
    from policy.stages import run_stage

    config = load_stage_config(default_config_path(stage))  # type: ignore[arg-type]
    if "cases" in extra:
        config.data.cases = extra.pop("cases")
    if "rollout" in extra:
        config.rollout = config.rollout.model_copy(update=extra.pop("rollout"))
    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):  # the trainer prints its logs; stdout is the one JSON line
        result = run_stage(config, out, overrides={"max_steps": steps, "save_steps": 10_000, "disable_tqdm": True, **extra})
    validation: dict[str, object] = {}
    if result.best_step is not None:  # the stage validated on set-aside training cases and kept its best step
        logged = [json.loads(line) for line in Path(result.metrics_path).read_text().splitlines()]
        checks = [r for r in logged if "val_reward" in r]
        validation = {"best_step": result.best_step, "best_val_reward": result.best_val_reward,
                      "val_rewards": {r["step"]: r["val_reward"] for r in checks},
                      "val_s": round(sum(r["val_s"] for r in checks), 1)}
    return result.final_model, (time.perf_counter() - started) / max(result.global_step, 1), validation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=28, help="rule-stage GRPO steps (K; 0 skips the rule stage)")
    parser.add_argument("--heldout", type=int, default=80, help="held-out rule items evaluated")
    parser.add_argument("--max-tokens", type=int, help="completion tokens, train and eval (default: rule.yaml)")
    parser.add_argument("--generations", type=int, help="completions per prompt (default: rule.yaml)")
    parser.add_argument("--batch", type=int, help="completions per step (default: rule.yaml)")
    parser.add_argument("--lr", type=float, help="learning rate (default: rule.yaml)")
    parser.add_argument("--temperature", type=float, help="sampling temperature in training (default: rule.yaml)")
    parser.add_argument("--multiturn-steps", type=int, default=0, help="also train/evaluate the multi-turn stage")
    parser.add_argument("--multiturn-cases", type=int, default=6)
    args = parser.parse_args()

    from policy.rule_data import RULE_DATA_DIR, load_rule_items
    from policy.stage_config import default_config_path, load_stage_config
    from policy.trainer_args import MedGRPOConfig

    rule_config = load_stage_config(default_config_path("rule"))  # the product's rule-stage settings
    trainer, weights = rule_config.trainer, rule_config.reward
    for name, key in (("max_tokens", "max_completion_length"), ("generations", "num_generations"),
                      ("batch", "per_device_train_batch_size"), ("lr", "learning_rate"), ("temperature", "temperature")):
        if getattr(args, name) is None:
            setattr(args, name, trainer.get(key, MedGRPOConfig.__dataclass_fields__[key].default))

    figures: dict[str, object] = {"bench": "train_gain", "steps": args.steps, "max_tokens": args.max_tokens,
                                  "lr": args.lr, "generations": args.generations, "batch": args.batch,
                                  "temperature": args.temperature}
    heldout = load_rule_items(RULE_DATA_DIR / "heldout.jsonl")[: args.heldout]
    with tempfile.TemporaryDirectory() as tmp:
        if args.steps > 0:
            t0 = time.perf_counter()
            base, base_terms = asyncio.run(rule_eval("embedded", heldout, args.max_tokens, weights))
            model, per_step, validation = train("rule", args.steps, Path(tmp) / "rule", {
                "max_completion_length": args.max_tokens, "num_generations": args.generations,
                "per_device_train_batch_size": args.batch, "learning_rate": args.lr, "temperature": args.temperature,
            })
            trained, trained_terms = asyncio.run(rule_eval(model, heldout, args.max_tokens, weights))
            figures["rule"] = {
                "heldout_items": len(heldout), "base": round(statistics.fmean(base), 4),
                "trained": round(statistics.fmean(trained), 4), **paired(base, trained),
                "base_terms": base_terms, "trained_terms": trained_terms,
                "train_s": round(per_step * args.steps, 1), "s_per_step": round(per_step, 1),
                "validation": validation, "wall_s": round(time.perf_counter() - t0, 1),
            }
        if args.multiturn_steps > 0:
            from patient_sim.cases import project_cases

            held_ids = {i.case_id for i in load_rule_items(RULE_DATA_DIR / "heldout.jsonl")}
            cases = [c for c in project_cases() if c.id in held_ids][: args.multiturn_cases]
            train_ids = [c.id for c in project_cases() if c.id not in held_ids][:16]
            t0 = time.perf_counter()
            base_mt = asyncio.run(consult_eval("embedded", cases, 3, 32))
            model_mt, per_step_mt, _ = train("multiturn", args.multiturn_steps, Path(tmp) / "mt", {
                "cases": train_ids, "num_generations": 2, "per_device_train_batch_size": 4, "learning_rate": args.lr,
                "rollout": {"max_turns": 3, "turn_tokens": 32, "max_completion_tokens": 240, "patient_max_tokens": 24},
            })
            trained_mt = asyncio.run(consult_eval(model_mt, cases, 3, 32))
            figures["multiturn"] = {
                "heldout_cases": len(cases), "base": round(statistics.fmean(base_mt), 4),
                "trained": round(statistics.fmean(trained_mt), 4), **paired(base_mt, trained_mt),
                "s_per_step": round(per_step_mt, 1), "wall_s": round(time.perf_counter() - t0, 1),
            }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
