"""Does training on the verifier make the doctor better at consultations it never saw? One JSON line.

The base model, the model after the ``sft`` warm start, and after ``sft`` + multi-turn GRPO, each through
the consultation eval (``evaluation.consult_eval``: the one consultation loop, the case rubric, the one
diagnosis matcher; the embedded model plays the patient for all three) on cases never trained on:
``../shared/data/agentclinic_medqa.jsonl`` (all of it, or ``--agentclinic N`` sampled with a fixed seed)
and a held-out split of the project's cases (every ``--heldout-every``-th by id; the rest train both
stages, and GRPO also trains on every AgentClinic case outside the evaluated sample: on the project's 34
training cases alone it learned their diagnoses by heart, its training reward rising while the held-out
score fell; ``--no-grpo-agentclinic`` trains it that way again). Figures per model and case set, each
with a bootstrap 95% interval over consultations: rubric score, diagnostic accuracy, void-turn share,
the share ending in a stated diagnosis, questions asked, tests ordered, termination reasons; paired
differences (same cases, same persona seeds) between the models; the multi-turn stage's own per-step reward, void-turn share and share of groups with zero
reward variance; and the exploit signatures in each model's own consultations (question barrages,
shotgun diagnoses, test shotguns, over-triage, text aimed at the grader, a padded final message) with a verdict: a
rubric gain that accuracy and the process figures do not share is reward hacking, and is said so.

    .venv/bin/python bench/train_consult.py --out runs/tc       # the full run (about an hour on 2 cores)
    .venv/bin/python bench/train_consult.py --out runs/tc --reuse --arpo   # add the ARPO arm to that run
    .venv/bin/python bench/train_consult.py --quick            # a smoke run (about 20 minutes on 2 busy cores)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import sys
import tempfile
import time
from pathlib import Path

AGENTCLINIC = Path(__file__).resolve().parents[2] / "shared" / "data" / "agentclinic_medqa.jsonl"
# Negative rubric items (rubric_gen.case_rubric) whose verdict marks an exploit's signature.
SIGNATURES = {
    "question_barrage": ("Fires a barrage of questions", True),
    "shotgun_diagnosis": ("Hedges with a shotgun of possible diagnoses", True),
    "test_shotgun": ("Orders tests the presentation does not call for", True),
    "over_triage": ("Sends the patient for emergency care that this routine problem does not need", True),
    "judge_address": ("Addresses a grader, a rubric or the scoring", True),
}
PADDED_WORDS = 250  # a final message longer than this is padding (the rubric's word limit)
METRICS = ("score", "accuracy", "void_turn_share", "diagnosis_stated", "questions", "tests_ordered")


def bootstrap(values: list[float], *, resamples: int = 2000, seed: int = 0) -> dict[str, float | None]:
    """The mean and its percentile-bootstrap 95% interval."""
    if not values:
        return {"mean": None, "lo": None, "hi": None}
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(resamples))
    return {"mean": round(sum(values) / n, 4), "lo": round(means[int(0.025 * resamples)], 4),
            "hi": round(means[int(0.975 * resamples) - 1], 4)}


def per_consultation(result) -> dict[str, float | None]:
    from verifier.markers import is_void_turn, parse_diagnosis

    doctor = [m.content for m in result.transcript if m.role == "assistant"]
    outcome = result.consult
    return {
        "score": result.score,  # None: could not be graded (left out of the score's figures, counted)
        "accuracy": float(outcome.correct),
        "void_turn_share": sum(is_void_turn(t) for t in doctor) / len(doctor) if doctor else 1.0,
        "diagnosis_stated": float(bool(doctor) and parse_diagnosis(doctor[-1]) is not None),
        "questions": float(outcome.questions),
        "tests_ordered": float(len(outcome.tests_ordered)),
    }


def signatures(results: list) -> dict[str, float]:
    shares = {}
    for family, (prefix, bad_when) in SIGNATURES.items():
        hits = 0
        for result in results:
            hits += any(c.criterion.startswith(prefix) and c.met is bad_when for c in result.criteria)
        shares[family] = round(hits / len(results), 4) if results else 0.0
    finals = [[m.content for m in r.transcript if m.role == "assistant"][-1:] for r in results]
    padded = sum(bool(final) and len(final[0].split()) > PADDED_WORDS for final in finals)
    shares["padding"] = round(padded / len(results), 4) if results else 0.0
    return shares


def evaluate(label: str, model: str, cases_set: str, case_ids: list[str] | None, limit: int | None, runs: Path,
             concurrency: int) -> list:
    from evaluation.consult_eval import ConsultEval
    from evaluation.records import ConsultParams
    from evaluation.store import ResultsStore
    from policy.clients import ClientSpec, release_clients
    from policy.graders import GraderSpec

    if cases_set == "agentclinic":
        params = ConsultParams(cases_path=str(AGENTCLINIC), cases_format="agentclinic")
    else:
        params = ConsultParams(case_ids=case_ids or [])
    evaluation = ConsultEval.create(policy=ClientSpec(model=model, max_batch_size=16), grader=GraderSpec(kind="rule"),
                                    params=params, limit=limit, concurrency=concurrency, runs_dir=runs,
                                    run_name=f"{label}-{cases_set}")
    print(f"[train_consult] eval {label} on {cases_set}", file=sys.stderr, flush=True)
    asyncio.run(evaluation.run(show_progress=False))
    asyncio.run(release_clients())  # one model after another: four models' weights and caches would not fit
    with ResultsStore.for_run(evaluation.run_dir) as store:
        return sorted(store.results(), key=lambda r: r.example_id)


def agentclinic_sample(limit: int | None, runs: Path) -> list[str]:
    """The AgentClinic case ids ``evaluate`` draws (the same fixed-seed sample): never trained on."""
    from evaluation.consult_eval import ConsultEval
    from evaluation.records import ConsultParams
    from policy.clients import ClientSpec
    from policy.graders import GraderSpec

    params = ConsultParams(cases_path=str(AGENTCLINIC), cases_format="agentclinic")
    evaluation = ConsultEval.create(policy=ClientSpec(), grader=GraderSpec(kind="rule"), params=params, limit=limit,
                                    runs_dir=runs, run_name="sample")
    return sorted({example.case.id for example in evaluation.examples()})


def axes(result) -> dict[str, float]:  # noqa: ANN001
    """The consultation's score per rubric axis (``axis:accuracy``, ``axis:completeness``, ...)."""
    return {k: v for k, v in (result.metrics or {}).items() if k.startswith("axis:")}


def summarize(results: list) -> dict[str, object]:
    rows = [per_consultation(r) for r in results]
    figures: dict[str, object] = {"n": len(rows)}
    for metric in METRICS:
        figures[metric] = bootstrap([row[metric] for row in rows if row[metric] is not None])
    names = sorted({name for r in results for name in axes(r)})
    figures["axes"] = {name: bootstrap([axes(r)[name] for r in results if name in axes(r)]) for name in names}
    figures["unscored"] = sum(row["score"] is None for row in rows)
    reasons: dict[str, int] = {}
    for result in results:
        reasons[result.consult.termination_reason] = reasons.get(result.consult.termination_reason, 0) + 1
    figures["termination"] = reasons
    figures["signatures"] = signatures(results)
    return figures


def paired(after: list, before: list) -> dict[str, object]:
    """``after - before`` per metric over the consultations both have (same case, same persona seed)."""
    by_id = {r.example_id: {**per_consultation(r), **axes(r)} for r in before}
    pairs = [({**per_consultation(r), **axes(r)}, by_id[r.example_id]) for r in after if r.example_id in by_id]
    names = [*METRICS, *sorted({name for a, _ in pairs for name in a if name.startswith("axis:")})]
    return {metric: bootstrap([a[metric] - b[metric] for a, b in pairs
                               if a.get(metric) is not None and b.get(metric) is not None])
            for metric in names}


def grpo_steps(metrics_path: Path) -> list[dict[str, object]]:
    from policy.grpo import STEP_TIMES

    steps = []
    for line in metrics_path.read_text().splitlines():
        record = json.loads(line)
        if "frac_reward_zero_std" not in record and "reward" not in record:
            continue
        steps.append({k: record.get(k) for k in (
            "step", "reward", "frac_reward_zero_std", "consultation/void_turn_share", "consultation/void_rate",
            "consultation/diagnosis_stated", "wall_s", "rollout/generated_tokens", "rollout/branches",
            "completions/mean_length",
            *(f"time/{part}_s" for part in STEP_TIMES)) if k in record})
    return steps


def finished(stage_dir: Path) -> str | None:
    """A stage folder's final model, if an earlier run of this bench left one (``--reuse``)."""
    final = stage_dir / "final"
    return str(final) if (final / "model.safetensors").is_file() else None


def last_step(metrics_path: Path) -> int | None:
    steps = [json.loads(line).get("step") for line in metrics_path.read_text().splitlines()] if metrics_path.is_file() else []
    return max((s for s in steps if isinstance(s, int)), default=None)


def grpo_arm(config, stage_dir: Path, start: str, steps: int, reuse: bool) -> tuple[dict[str, object], str]:  # noqa: ANN001
    """Train (or, with ``reuse``, find) one multi-turn GRPO arm from ``start``: its figures and final model."""
    from policy.stages import run_stage

    clock = time.perf_counter()
    final = finished(stage_dir) if reuse else None
    reused = final is not None
    if final is None:
        with contextlib.redirect_stdout(sys.stderr):
            final = run_stage(config, stage_dir, model=start,
                              overrides={"max_steps": steps, "save_steps": 10_000, "disable_tqdm": True}).final_model
        # The arm's engines (the policy's and its frozen patient copy) stay cached otherwise: a second arm in
        # the same process was killed for memory (17.9 GB) with the first arm's still held.
        from policy.clients import release_clients

        asyncio.run(release_clients())
        gc.collect()
    logged = grpo_steps(stage_dir / "metrics.jsonl")
    generated = [s["rollout/generated_tokens"] for s in logged if s.get("rollout/generated_tokens") is not None]
    if not generated:  # a run from before the count was logged: each step's completions' own tokens
        rows = int(config.trainer.get("per_device_train_batch_size", 8))
        generated = [round(sum(rows * float(s.get("completions/mean_length") or 0) for s in logged))]
    return {"steps": logged, "n_steps": len(logged), "generated_tokens": generated[-1],
            "branching": config.rollout.branching.enabled, "seconds": round(time.perf_counter() - clock, 1),
            "reused": reused}, final


def verdict(figures: dict, base: str, trained: str) -> dict[str, object]:
    """Reward hacking: the rubric score goes up but accuracy and the process figures do not."""
    diff = figures["paired"][f"{trained}-{base}"]
    score_up = (diff["score"]["lo"] or 0) > 0
    independent_up = any((diff[m]["lo"] or 0) > 0 for m in ("accuracy", "diagnosis_stated", "questions", "tests_ordered")) \
        or (diff["void_turn_share"]["hi"] or 0) < 0
    new_signatures = {k: v for k, v in figures["models"][trained]["signatures"].items()
                      if v > figures["models"][base]["signatures"][k]}
    hacking = score_up and not independent_up
    return {"reward_hacking": hacking, "signatures_above_base": new_signatures,
            "note": ("rubric gain without an independent gain: reward hacking" if hacking else
                     "no rubric gain that the independent figures do not share")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few cases, one dialogue each, 1 step")
    parser.add_argument("--agentclinic", type=int, default=None,
                        help="AgentClinic cases, a fixed sample (default 40; 107 is all of them; --quick: 8)")
    parser.add_argument("--heldout-every", type=int, default=4, help="every N-th project case (by id) is held out")
    parser.add_argument("--variants", type=int, default=None, help="warm-start dialogues per training case (4)")
    parser.add_argument("--sft-epochs", type=float, default=None, help="warm-start epochs (default 1)")
    parser.add_argument("--sft-lr", type=float, default=None, help="warm-start learning rate (default: sft.yaml's)")
    parser.add_argument("--grpo-steps", type=int, default=None, help="multi-turn GRPO steps (default 30)")
    parser.add_argument("--grpo-beta", type=float, default=None,
                        help="the KL coefficient of the multi-turn GRPO stage (default: multiturn.yaml's)")
    parser.add_argument("--grpo-bf16", action=argparse.BooleanOptionalAction, default=None,
                        help="the multi-turn GRPO stage's loss under bfloat16 autocast (default: multiturn.yaml's)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--out", type=Path, default=None, help="keep the run here (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --out: reuse the stages and evaluations an earlier run left there")
    parser.add_argument("--no-grpo-agentclinic", dest="grpo_agentclinic", action="store_false",
                        help="GRPO on the project's training cases only (default: also on every AgentClinic case "
                             "outside the evaluated sample, so that it cannot learn its few cases' diagnoses by heart)")
    parser.add_argument("--arpo", action="store_true",
                        help="also train the GRPO stage with ARPO branching at plain GRPO's generated-token budget")
    args = parser.parse_args()
    if args.reuse and args.out is None:
        parser.error("--reuse needs --out (the folder of the earlier run)")
    quick = args.quick
    n_agentclinic = args.agentclinic if args.agentclinic is not None else (8 if quick else 40)
    variants = args.variants or (1 if quick else 4)
    steps = args.grpo_steps if args.grpo_steps is not None else (1 if quick else 30)
    epochs = args.sft_epochs if args.sft_epochs is not None else 1.0

    from patient_sim.cases import import_agentclinic, project_cases
    from policy.stage_config import CaseSource, StageConfig, default_config_path, load_stage_config
    from policy.stages import run_stage

    if not AGENTCLINIC.is_file():
        sys.exit(f"error: {AGENTCLINIC}: not found (the shared AgentClinic data sits beside the project)")
    cases = sorted(project_cases(), key=lambda c: c.id)
    held = [c.id for i, c in enumerate(cases) if i % args.heldout_every == 0]
    train = [c.id for c in cases if c.id not in set(held)]
    if quick:
        held, train = held[:3], train[:4]
    figures: dict[str, object] = {"bench": "train_consult", "quick": quick, "train_cases": len(train),
                                  "heldout_project_cases": len(held), "agentclinic_cases": n_agentclinic,
                                  "warm_start_variants": variants, "sft_epochs": epochs, "grpo_steps": steps}
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        out = args.out or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sft_config = load_stage_config(default_config_path("sft"))
        trainer = {**sft_config.trainer, "save_steps": 10_000, "disable_tqdm": True}
        trainer["num_train_epochs"] = epochs
        if args.sft_lr is not None:
            trainer["learning_rate"] = args.sft_lr
        figures["sft_learning_rate"] = trainer["learning_rate"]
        sft_config = StageConfig.model_validate({**sft_config.model_dump(), "data": {"cases": train},
                                                 "warm_start": {**sft_config.warm_start.model_dump(), "variants": variants},
                                                 "trainer": trainer})
        clock = time.perf_counter()
        sft_final = finished(out / "sft") if args.reuse else None
        if sft_final is None:
            with contextlib.redirect_stdout(sys.stderr):
                sft_final = run_stage(sft_config, out / "sft").final_model
        data = json.loads((out / "sft" / "sft_data.json").read_text())
        figures["sft"] = {"dialogues": data["dialogues"], "complete": data["complete"],
                          "steps": last_step(out / "sft" / "metrics.jsonl"),
                          "patient_fallback_share": data["patient_fallback_share"],
                          "seconds": round(time.perf_counter() - clock, 1), "reused": bool(args.reuse)}
        models = {"base": "embedded", "sft": sft_final}
        if steps:
            multi = load_stage_config(default_config_path("multiturn"))
            grpo_data: dict[str, object] = {"cases": train}
            if args.grpo_agentclinic:
                evaluated = set(agentclinic_sample(n_agentclinic, out / "runs"))
                extra = [c.id for c in import_agentclinic(AGENTCLINIC) if c.id not in evaluated]
                grpo_data = {"cases": [*train, *extra],
                             "case_sources": [CaseSource(path=str(AGENTCLINIC), format="agentclinic")]}
            figures["grpo_train_cases"] = len(grpo_data["cases"])
            multi = multi.model_copy(update={"data": multi.data.model_copy(update=grpo_data)})
            if args.grpo_beta is not None:
                multi = multi.model_copy(update={"trainer": {**multi.trainer, "beta": args.grpo_beta}})
            if args.grpo_bf16 is not None:
                multi = multi.model_copy(update={"trainer": {**multi.trainer, "bf16": args.grpo_bf16}})
            figures["grpo_beta"] = float(multi.trainer.get("beta", 0.0))
            figures["grpo_bf16"] = bool(multi.trainer.get("bf16", False))
            figures["grpo"], models["sft_grpo"] = grpo_arm(multi, out / "multiturn", sft_final, steps, args.reuse)
            if args.arpo:  # the same stage with ARPO branching, until it has generated what plain GRPO did
                budget = figures["grpo"]["generated_tokens"]
                rollout = multi.rollout.model_copy(update={
                    "branching": multi.rollout.branching.model_copy(update={"enabled": True}), "token_budget": budget})
                figures["arpo"], models["sft_arpo"] = grpo_arm(multi.model_copy(update={"rollout": rollout}),
                                                              out / "multiturn_arpo", sft_final, 3 * steps, args.reuse)
        results: dict[str, dict[str, list]] = {}
        clock = time.perf_counter()
        for label, model in models.items():
            results[label] = {
                "agentclinic": evaluate(label, model, "agentclinic", None, n_agentclinic, out / "runs", args.concurrency),
                "heldout": evaluate(label, model, "heldout", held, None, out / "runs", args.concurrency),
            }
        figures["eval_seconds"] = round(time.perf_counter() - clock, 1)
    trained = "sft_grpo" if "sft_grpo" in models else "sft"
    pairs = [("sft", "base")] + ([("sft_grpo", "base"), ("sft_grpo", "sft")] if "sft_grpo" in models else [])
    pairs += [("sft_arpo", "sft"), ("sft_arpo", "sft_grpo")] if "sft_arpo" in models else []
    for cases_set in ("agentclinic", "heldout"):
        block: dict[str, object] = {"models": {label: summarize(r[cases_set]) for label, r in results.items()}}
        block["paired"] = {f"{a}-{b}": paired(results[a][cases_set], results[b][cases_set]) for a, b in pairs}
        block["verdict"] = verdict(block, "base", trained)
        figures[cases_set] = block
    ac = figures["agentclinic"]
    final = ac["models"][trained]
    sft_shotgun = ac["models"]["sft"]["signatures"]["test_shotgun"]
    figures["targets"] = {
        "void_turn_share<=0.10": final["void_turn_share"]["mean"] <= 0.10,
        "diagnosis_stated>=0.90": final["diagnosis_stated"]["mean"] >= 0.90,
        "sft_test_shotgun<=0.20": sft_shotgun <= 0.20,
    }
    if "sft_grpo" in models:  # the stage's own gain: over the warm start it started from, on unseen cases
        rl = ac["paired"]["sft_grpo-sft"]["score"]
        figures["targets"]["grpo_minus_sft_score_ci_above_0"] = (rl["lo"] or 0) > 0
        figures["targets"]["no_signature_above_sft"] = not {
            k for k, v in ac["models"]["sft_grpo"]["signatures"].items() if v > ac["models"]["sft"]["signatures"][k]}
    figures["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
