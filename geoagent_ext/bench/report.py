"""Summaries of bench results: results.json (machine) and report.md (people).

Headline figures per mode: the strict mean score (the tasks' own graders where they
exist), passes (score 1), false successes (the run said "succeeded", the grade is below 1)
and false alarms (the run said otherwise, the grade is 1): a run's status must be true.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from .harness import MODES, TaskResult


def summarize(results: list[TaskResult]) -> dict:
    modes: dict[str, dict] = {}
    for mode in MODES:
        rows = [r for r in results if r.mode == mode]
        if not rows:
            continue
        f1s = [r.call_metrics["f1"] for r in rows if r.call_metrics]
        passed = [r for r in rows if r.passed]
        to_deliverable = [r.time_to_deliverable_s for r in passed if r.time_to_deliverable_s is not None]
        modes[mode] = {
            "tasks": len(rows),
            "graders": sorted({r.grader or "generic" for r in rows}),
            "mean_score": round(statistics.fmean(r.score for r in rows), 4),
            "passes": len(passed),
            "pass_rate": round(len(passed) / len(rows), 4),
            "succeeded": sum(r.status == "succeeded" for r in rows),
            "false_successes": sum(r.false_success for r in rows),
            "false_alarms": sum(r.false_alarm for r in rows),
            "llm_calls": sum(r.llm_calls for r in rows),
            "tokens_in": sum(r.tokens_in for r in rows),
            "tokens_out": sum(r.tokens_out for r in rows),
            "wall_s": round(sum(r.wall_s for r in rows), 1),
            "mean_time_to_deliverable_passed_s": round(statistics.fmean(to_deliverable), 1) if to_deliverable else None,
            "llm_calls_per_pass": round(sum(r.llm_calls for r in rows) / len(passed), 1) if passed else None,
            "mean_call_f1": round(statistics.fmean(f1s), 4) if f1s else None,
            "model": rows[0].model,
        }
    tasks = [
        dict(
            r.model_dump(exclude={"code", "subchecks", "gates"}),
            false_success=r.false_success,
            false_alarm=r.false_alarm,
            failed_gates=[g["name"] for g in r.gates if not g["passed"]],
        )
        for r in results
    ]
    return {"modes": modes, "ratios": _ratios(modes), "tasks": tasks}


def _ratios(modes: dict[str, dict]) -> dict[str, float | None]:
    """Mean score of loop and mcts relative to single (None when single scored 0 or is missing)."""
    base = modes.get("single", {}).get("mean_score")
    return {
        f"{mode}/single": (round(modes[mode]["mean_score"] / base, 3) if base else None)
        for mode in ("loop", "mcts", "auto")
        if mode in modes
    }


def _or_dash(value) -> str:
    return "-" if value is None else str(value)


def markdown(summary: dict) -> str:
    lines = [
        "# Benchmark report",
        "",
        "Scores are the tasks' own graders' (`grade.py`) where a task has one: a failed gate "
        "(missing, unparsable, wrong CRS, missing columns) scores 0. A false success is a run that "
        "said `succeeded` with a score below 1; a false alarm one that said otherwise with a score of 1.",
        "",
        "| mode | model | tasks | strict mean | passes | said succeeded | false successes | false alarms | "
        "LLM calls | calls per pass | tokens in/out | wall s | time to deliverable (passed, mean s) | call F1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, m in summary["modes"].items():
        lines.append(
            f"| {mode} | {m['model']} | {m['tasks']} | {m['mean_score']:.3f} | {m['passes']} | {m['succeeded']} | "
            f"**{m['false_successes']}** | {m['false_alarms']} | {m['llm_calls']} | "
            f"{_or_dash(m['llm_calls_per_pass'])} | {m['tokens_in']}/{m['tokens_out']} | {m['wall_s']} | "
            f"{_or_dash(m['mean_time_to_deliverable_passed_s'])} | {_or_dash(m['mean_call_f1'])} |"
        )
    ratios = summary.get("ratios") or {}
    if ratios:
        lines += [
            "",
            "Mean score relative to single: "
            + ", ".join(f"{name} = {value if value is not None else 'n/a'}" for name, value in ratios.items()),
        ]
    lines += [
        "",
        "## Per task",
        "",
        "| task | mode | grader | score | pass | run said | false success | failed gates | LLM calls | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in sorted(summary["tasks"], key=lambda t: (t["task_id"], t["mode"])):
        grader = t.get("grader") or "generic"
        if t.get("grader_error"):
            grader += f" (error: {t['grader_error'][:80]})"
        lines.append(
            f"| {t['task_id']} | {t['mode']} | {grader} | {t['score']:.3f} | {'yes' if t['passed'] else 'no'} | "
            f"{t['status']} | {'**yes**' if t.get('false_success') else ''} | "
            f"{', '.join(t.get('failed_gates') or [])} | {t['llm_calls']} | {t['wall_s']} |"
        )
    return "\n".join(lines) + "\n"


def write_reports(out_dir: Path, results: list[TaskResult]) -> dict:
    summary = summarize(results)
    out_dir = Path(out_dir)
    (out_dir / "results.json").write_text(json.dumps(summary, indent=1))
    (out_dir / "report.md").write_text(markdown(summary))
    return summary
