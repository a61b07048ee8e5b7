"""The run report: one self-contained HTML file (charts inline as base64 PNG) and a JSON summary.

``write_report(run_dir)`` rebuilds both from the results store alone, so ``medverifier report RUN``
works on a finished, a resumed or a half-finished run. A demo run's doctors side by side
(``comparison.json``, written by ``medverifier demo``) come first, under the run's summary.
"""

from __future__ import annotations

import base64
import io
import logging
from pathlib import Path
from typing import TypeVar

import jinja2
from pydantic import BaseModel

from evaluation.agreement import AgreementReport
from evaluation.audit import AuditReport
from evaluation.records import ExampleResult
from evaluation.store import ResultsStore, dump_json, load_config
from evaluation.summary import Comparison, RunSummary, summarize

logger = logging.getLogger(__name__)
_Report = TypeVar("_Report", bound=BaseModel)

WORST_CASES = 5
AGREEMENT_FILE = "agreement.json"  # written beside a run by ``medverifier reviews agreement --run``
COMPARISON_FILE = "comparison.json"  # written beside a run by ``medverifier demo`` (doctors side by side)

_TEMPLATE = jinja2.Template(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>medverifier run {{ s.run }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f3f3f3}.chart{max-width:100%;height:auto;border:1px solid #eee;margin:0.5rem 0}
.msg{white-space:pre-wrap;padding:6px 10px;margin:4px 0;border-radius:6px}
.assistant{background:#eef5ff}.user{background:#f6f6f6}.system{background:#fff8e6}
.met{color:#1a7f37}.unmet{color:#b42318}.unscored{color:#777}
</style></head><body>
<h1>Run {{ s.run }} <small>({{ s.kind }})</small></h1>
<table id="summary">
<tr><th>policy</th><td>{{ s.policy }}</td></tr><tr><th>grader</th><td>{{ s.grader }}</td></tr>
<tr><th>seed</th><td>{{ s.seed }}</td></tr>
<tr><th>examples</th><td>{{ s.finished }} finished of {{ s.planned }}{% if s.failed %}, {{ s.failed }} failed{% endif %}</td></tr>
<tr><th>overall score</th><td>{{ fmt(s.score) }} ± {{ fmt(s.bootstrap_std) }} (bootstrap std, n={{ s.n_scored }})</td></tr>
<tr><th>unscored rubric items</th><td>{{ s.unscored_items }}</td></tr>
{% if s.kind == "healthbench" %}<tr><th>length-adjusted score (p={{ s.length_penalty }})</th><td>{{ fmt(s.length_adjusted) }}</td></tr>
<tr><th>mean response length</th><td>{{ "%.0f"|format(s.mean_response_chars) }} chars</td></tr>{% endif %}
{% if c %}<tr><th>diagnostic accuracy</th><td>{{ fmt(c.diagnostic_accuracy) }} ({{ c.correct }}/{{ c.n }}; {{ c.judge_matches }} judge-assisted, {{ c.no_diagnosis }} without a diagnosis)</td></tr>
<tr><th>mean turns / questions / tests ordered</th><td>{{ "%.1f"|format(c.mean_turns) }} / {{ "%.1f"|format(c.mean_questions) }} / {{ "%.1f"|format(c.mean_tests_ordered) }}</td></tr>
<tr><th>leaks caught / fallbacks</th><td>{{ c.leaks_caught }} / {{ c.fallbacks }}</td></tr>
<tr><th>termination reasons</th><td>{% for k, v in c.termination_reasons.items() %}{{ k }}: {{ v }}{% if not loop.last %}, {% endif %}{% endfor %}</td></tr>{% endif %}
</table>
{% if cmp %}<h2 id="comparison">Side by side: the same {{ cmp.cases|length }} cases, {{ cmp.columns|length }} doctors</h2>
<p class="conclusion"><b>{{ cmp.conclusion }}</b></p>
<table class="comparison"><tr><th></th>{% for col in cmp.columns %}<th title="{{ col.description }}">{{ col.label }}</th>{% endfor %}</tr>
<tr><th>reward</th>{% for col in cmp.columns %}<td>{{ fmt(col.reward) }}</td>{% endfor %}</tr>
<tr><th>diagnoses right</th>{% for col in cmp.columns %}<td>{{ col.right }}/{{ cmp.cases|length }}</td>{% endfor %}</tr>
{% for axis in cmp_axes %}<tr><th>{{ axis_label(axis) }}</th>{% for col in cmp.columns %}<td>{{ fmt(col.axes.get(axis)) }}</td>{% endfor %}</tr>{% endfor %}
</table>
<table class="comparison-cases"><tr><th>case: score / diagnosis</th>{% for col in cmp.columns %}<th>{{ col.label }}</th>{% endfor %}</tr>
{% for case in cmp.cases %}<tr><th>{{ case }}</th>{% for col in cmp.columns %}{% set g = col.cases.get(case) %}<td>{% if g %}{{ fmt(g.score) }}<br><small class="{{ 'met' if g.correct else 'unmet' }}">{{ (g.diagnosis or "no diagnosis")|truncate(60) }}</small>{% else %}n/a{% endif %}</td>{% endfor %}</tr>{% endfor %}
</table>
<ul class="legend">{% for col in cmp.columns %}<li><b>{{ col.label }}</b>: {{ col.description }}</li>{% endfor %}
<li>The scripted and natural doctors talk to fixed patient replies and are graded as the exploit audit grades them; every column is graded by the same case rubric, by rule.</li></ul>{% endif %}
{% for title, table in tables %}{% if table %}<h2>{{ title }}</h2>
<table><tr><th>tag</th><th>score</th><th>bootstrap std</th><th>n</th></tr>
{% for name, m in table.items() %}<tr><td>{{ name }}</td><td>{{ fmt(m.mean) }}</td><td>{{ fmt(m.bootstrap_std) }}</td><td>{{ m.n_samples }}</td></tr>{% endfor %}
</table>{% endif %}{% endfor %}
{% if c and c.by_specialty %}<h2>Diagnostic accuracy by specialty</h2>
<table><tr><th>specialty</th><th>accuracy</th><th>correct</th><th>n</th></tr>
{% for name, a in c.by_specialty.items() %}<tr><td>{{ name }}</td><td>{{ fmt(a.accuracy) }}</td><td>{{ a.correct }}</td><td>{{ a.n }}</td></tr>{% endfor %}
</table>{% endif %}
{% for a in audits %}<h2 id="audit-{{ a.domain }}">Exploit audit: {{ a.domain }} ({{ a.items }} items{% if a.source %}, {{ a.source }}{% endif %}) — {{ "passed" if a.passed else "FAILED" }}</h2>
<table class="audit"><tr><th>policy</th><th>class</th><th>items</th><th>mean reward</th><th>ratio to reference</th><th>ties</th><th>bound</th><th>verdict</th></tr>
{% for p in [a.reference] + a.exploits %}<tr><td>{{ p.name }}</td><td>{{ p.family }}</td><td>{{ p.items }}</td><td>{{ fmt(p.mean_reward) }}</td><td>{{ fmt(p.ratio) }}</td><td>{{ p.ties|length }}</td><td>{{ p.bound }}</td><td class="{{ 'met' if p.passed else 'unmet' }}">{{ ("ok" if p.applicable else "n/a") if p.passed else p.failures|join("; ") }}</td></tr>{% endfor %}
</table>{% for n in a.notes %}<p>{{ n }}</p>{% endfor %}{% endfor %}
{% if g %}<h2 id="agreement">Clinician agreement ({{ g.reviews }} reviews of {{ g.consultations }} consultations by {{ g.reviewers|join(", ") }})</h2>
<table class="agreement"><tr><th>comparison</th><th>n</th><th>accuracy</th><th>macro F1</th><th>Cohen's kappa</th></tr>
{% for name, st in agreement_rows %}<tr><td>{{ name }}</td><td>{{ st.n }}</td>{% for key in ("accuracy", "macro_f1", "kappa") %}<td>{{ fmt(st[key]) }}{% if st[key ~ "_ci"] %} [{{ "%.2f"|format(st[key ~ "_ci"].low) }}, {{ "%.2f"|format(st[key ~ "_ci"].high) }}]{% endif %}</td>{% endfor %}</tr>{% endfor %}
</table>{% if g.most_disagreed %}<table><tr><th>most disagreed criterion</th><th>disagreements</th><th>grader</th><th>clinicians</th><th>compared</th></tr>
{% for d in g.most_disagreed %}<tr><td>{{ d.criterion }}</td><td>{{ d.disagreements }}</td><td>{{ d.grader_disagreements }}</td><td>{{ d.clinician_disagreements }}</td><td>{{ d.compared }}</td></tr>{% endfor %}
</table>{% endif %}{% endif %}
<h2>Charts</h2>
{% for name, png in charts %}<figure><img class="chart" id="chart-{{ name }}" alt="{{ name }}" src="data:image/png;base64,{{ png }}"><figcaption>{{ name }}</figcaption></figure>{% endfor %}
<h2>Worst cases</h2>
{% for r in worst %}<section class="case"><h3>{{ r.example_id }} — score {{ fmt(r.score) }}{% if r.consult %}; diagnosis {{ r.consult.diagnosis or "none" }} (expected {{ r.consult.final_diagnosis }}, {{ "correct" if r.consult.correct else "wrong" }}){% endif %}</h3>
{% for m in r.transcript %}<div class="msg {{ m.role }}"><b>{{ m.role }}:</b> {{ m.content }}</div>{% endfor %}
<table><tr><th>verdict</th><th>points</th><th>criterion</th><th>explanation</th></tr>
{% for cr in r.criteria %}<tr><td class="{{ 'unscored' if cr.met is none else ('met' if cr.met else 'unmet') }}">{{ 'unscored' if cr.met is none else ('met' if cr.met else 'not met') }}</td><td>{{ cr.points }}</td><td>{{ cr.criterion }}</td><td>{{ cr.explanation }}</td></tr>{% endfor %}
</table></section>{% endfor %}
</body></html>""",
    autoescape=True,
)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _png(fig: object) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight")  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _bar(title: str, labels: list[str], values: list[float], errors: list[float] | None = None) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.4 * max(3, len(labels)) + 1))
    ax.barh(labels, values, xerr=errors, color="#4c78a8")
    ax.set_xlim(0, 1)
    ax.set_title(title)
    ax.invert_yaxis()
    return _png(fig)


def charts(summary: RunSummary, results: list[ExampleResult]) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: list[tuple[str, str]] = []
    for name, table in (("scores-by-axis", summary.axes), ("scores-by-theme", summary.themes)):
        if table:
            out.append((name, _bar(name.replace("-", " "), list(table), [m.mean for m in table.values()],
                                   [m.bootstrap_std for m in table.values()])))
    scores = [r.score for r in results if r.score is not None]
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.hist(scores, bins=10, range=(min(0.0, *scores) if scores else 0.0, max(1.0, *scores) if scores else 1.0),
            color="#72b7b2")
    ax.set_title(f"score distribution (n={len(scores)})")
    ax.set_xlabel("example score")
    out.append(("score-distribution", _png(fig)))
    if summary.consult and summary.consult.by_specialty:
        spec = summary.consult.by_specialty
        out.append(("diagnostic-accuracy-by-specialty",
                    _bar("diagnostic accuracy by specialty", list(spec), [a.accuracy for a in spec.values()])))
    return out


def load_audits(run_dir: Path) -> list[AuditReport]:
    """The exploit audits saved beside a run (``audit-<domain>.json``, by ``medverifier audit --run``)."""
    audits = []
    for path in sorted(run_dir.glob("audit-*.json")):
        try:
            audits.append(AuditReport.model_validate_json(path.read_text(encoding="utf-8")))
        except ValueError:
            logger.warning("%s: unreadable audit report, left out of the HTML report", path)
    return audits


def _load_beside(run_dir: Path, name: str, model: type[_Report], what: str) -> _Report | None:
    """A report saved beside a run, if any; an unreadable one is left out of the HTML report, with a warning."""
    path = run_dir / name
    if not path.is_file():
        return None
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError:
        logger.warning("%s: unreadable %s, left out of the HTML report", path, what)
        return None


def load_agreement(run_dir: Path) -> AgreementReport | None:
    """The clinician agreement saved beside a run, if any."""
    return _load_beside(run_dir, AGREEMENT_FILE, AgreementReport, "agreement report")


def load_comparison(run_dir: Path) -> Comparison | None:
    """The doctors-side-by-side comparison saved beside a run (by ``medverifier demo``), if any."""
    return _load_beside(run_dir, COMPARISON_FILE, Comparison, "comparison")


def _comparison_axes(comparison: Comparison | None) -> list[str]:
    if comparison is None:
        return []
    return sorted({axis for column in comparison.columns for axis in column.axes})


def _axis_label(name: str) -> str:
    return name.removeprefix("axis:").replace("_", " ")


def _agreement_rows(report: AgreementReport | None) -> list[tuple[str, dict]]:
    if report is None:
        return []
    rows = [("grader vs clinicians", report.grader)]
    rows += [(f"axis {axis}", stats) for axis, stats in report.by_axis.items()]
    rows += [(f"grader {name}", stats) for name, stats in report.by_grader.items()]
    if report.clinicians is not None:
        rows.append(("clinician vs clinician", report.clinicians))
    return [(name, stats.model_dump()) for name, stats in rows]


def render_html(summary: RunSummary, results: list[ExampleResult], audits: list[AuditReport] | None = None,
                agreement: AgreementReport | None = None, comparison: Comparison | None = None) -> str:
    worst = sorted(results, key=lambda r: (r.score if r.score is not None else 2.0, r.example_id))[:WORST_CASES]
    return _TEMPLATE.render(
        cmp=comparison,
        cmp_axes=_comparison_axes(comparison),
        axis_label=_axis_label,
        g=agreement,
        agreement_rows=_agreement_rows(agreement),
        audits=audits or [],
        s=summary,
        c=summary.consult,
        fmt=_fmt,
        tables=[("Scores by axis", summary.axes), ("Scores by theme", summary.themes),
                ("Other rubric tags", summary.other_tags)],
        charts=charts(summary, results),
        worst=worst,
    )


def write_report(run_dir: str | Path) -> Path:
    """Rebuild ``summary.json`` and ``report.html`` for a run folder; return the report's path."""
    run_dir = Path(run_dir)
    config = load_config(run_dir)
    previous = None
    if (run_dir / "summary.json").is_file():
        try:
            previous = RunSummary.model_validate_json((run_dir / "summary.json").read_text())
        except ValueError:
            logger.warning("%s: unreadable summary, rebuilding it", run_dir / "summary.json")
    with ResultsStore.for_run(run_dir) as store:
        results = store.results(policy=config.policy.label, grader=config.grader.label, seed=config.seed)
    summary = summarize(config, results,
                        planned=previous.planned if previous else None,
                        failed=previous.failed if previous else 0)
    dump_json(run_dir / "summary.json", summary)
    path = run_dir / "report.html"
    path.write_text(render_html(summary, results, load_audits(run_dir), load_agreement(run_dir),
                                load_comparison(run_dir)), encoding="utf-8")
    return path


def summary_table(summary: RunSummary) -> object:
    """A rich ``Table`` of the headline numbers (the CLI prints it)."""
    from rich.table import Table

    table = Table(title=f"{summary.kind} run {summary.run}", show_header=True)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("policy / grader", f"{summary.policy} / {summary.grader}")
    table.add_row("examples", f"{summary.finished}/{summary.planned}" + (f" ({summary.failed} failed)" if summary.failed else ""))
    table.add_row("overall score", f"{_fmt(summary.score)} ± {_fmt(summary.bootstrap_std)} (n={summary.n_scored})")
    table.add_row("unscored rubric items", str(summary.unscored_items))
    if summary.kind == "healthbench":
        table.add_row(f"length-adjusted (p={summary.length_penalty})", _fmt(summary.length_adjusted))
    for name, stats in {**summary.axes, **summary.themes}.items():
        table.add_row(name, f"{_fmt(stats.mean)} (n={stats.n_samples})")
    c = summary.consult
    if c is not None:
        table.add_row("diagnostic accuracy", f"{_fmt(c.diagnostic_accuracy)} ({c.correct}/{c.n})")
        for name, acc in c.by_specialty.items():
            table.add_row(f"  {name}", f"{_fmt(acc.accuracy)} ({acc.correct}/{acc.n})")
        table.add_row("turns / questions / tests", f"{c.mean_turns:.1f} / {c.mean_questions:.1f} / {c.mean_tests_ordered:.1f}")
        table.add_row("leaks caught / fallbacks", f"{c.leaks_caught} / {c.fallbacks}")
        table.add_row("termination", ", ".join(f"{k}: {v}" for k, v in c.termination_reasons.items()))
    return table


def comparison_table(comparison: Comparison) -> object:
    """A rich ``Table`` of the doctors side by side, one column each (the demo prints it)."""
    from rich import box
    from rich.table import Table

    table = Table(title=f"the same {len(comparison.cases)} cases, {len(comparison.columns)} doctors",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    table.add_column("")
    for column in comparison.columns:
        table.add_column(column.label, justify="right")
    n = len(comparison.cases)
    table.add_row("reward", *(_fmt(c.reward) for c in comparison.columns), style="bold")
    table.add_row("diagnoses right", *(f"{c.right}/{n}" for c in comparison.columns))
    for axis in _comparison_axes(comparison):
        table.add_row(_axis_label(axis), *(_fmt(c.axes.get(axis)) for c in comparison.columns))
    return table
