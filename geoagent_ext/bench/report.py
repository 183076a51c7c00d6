"""Summaries of bench results: results.json (machine) and report.md (people)."""

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
        modes[mode] = {
            "tasks": len(rows),
            "mean_score": round(statistics.fmean(r.score for r in rows), 4),
            "pass_rate": round(sum(r.passed for r in rows) / len(rows), 4),
            "llm_calls": sum(r.llm_calls for r in rows),
            "tokens_in": sum(r.tokens_in for r in rows),
            "tokens_out": sum(r.tokens_out for r in rows),
            "wall_s": round(sum(r.wall_s for r in rows), 1),
            "mean_call_f1": round(statistics.fmean(f1s), 4) if f1s else None,
            "model": rows[0].model,
        }
    return {"modes": modes, "ratios": _ratios(modes), "tasks": [r.model_dump(exclude={"code", "subchecks"}) for r in results]}


def _ratios(modes: dict[str, dict]) -> dict[str, float | None]:
    """Mean score of loop and mcts relative to single (None when single scored 0 or is missing)."""
    base = modes.get("single", {}).get("mean_score")
    return {f"{mode}/single": (round(modes[mode]["mean_score"] / base, 3) if base else None)
            for mode in ("loop", "mcts") if mode in modes}


def markdown(summary: dict) -> str:
    lines = ["# Benchmark report", "", "| mode | model | tasks | mean score | pass rate | LLM calls | tokens in/out | wall s | call F1 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for mode, m in summary["modes"].items():
        lines.append(f"| {mode} | {m['model']} | {m['tasks']} | {m['mean_score']:.3f} | {m['pass_rate']:.2f} | {m['llm_calls']} | "
                     f"{m['tokens_in']}/{m['tokens_out']} | {m['wall_s']} | {m['mean_call_f1'] if m['mean_call_f1'] is not None else '-'} |")
    ratios = summary.get("ratios") or {}
    if ratios:
        lines += ["", "Mean score relative to single: " + ", ".join(
            f"{name} = {value if value is not None else 'n/a'}" for name, value in ratios.items())]
    lines += ["", "## Per task", "", "| task | mode | score | pass | status | LLM calls | wall s |", "|---|---|---|---|---|---|---|"]
    for t in sorted(summary["tasks"], key=lambda t: (t["task_id"], t["mode"])):
        lines.append(f"| {t['task_id']} | {t['mode']} | {t['score']:.3f} | {'yes' if t['passed'] else 'no'} | {t['status']} | {t['llm_calls']} | {t['wall_s']} |")
    return "\n".join(lines) + "\n"


def write_reports(out_dir: Path, results: list[TaskResult]) -> dict:
    summary = summarize(results)
    out_dir = Path(out_dir)
    (out_dir / "results.json").write_text(json.dumps(summary, indent=1))
    (out_dir / "report.md").write_text(markdown(summary))
    return summary
