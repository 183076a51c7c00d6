"""Run one task's own ``grade.py`` and print its ScoreReport as JSON (a child process).

Started by ``official.grade_with_task_grader`` as a script, never imported: each task's
grader, the ``geo_grading`` library and whatever they import live and die in this process,
so nothing one grader loads or patches can reach the next task or the harness.

    python task_grader_child.py GRADE_PY SUBMISSION_DIR [LIBRARY_ROOT]
"""

import importlib.util
import json
import sys
from pathlib import Path


def main() -> int:
    grade_py, submission = Path(sys.argv[1]), Path(sys.argv[2])
    if len(sys.argv) > 3:
        sys.path.insert(0, sys.argv[3])
    sys.path.insert(0, str(grade_py.parent))
    spec = importlib.util.spec_from_file_location("task_grade", grade_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.grade(submission)
    payload = report.to_dict() if hasattr(report, "to_dict") else report
    sys.stdout.write("\n@@SCORE_REPORT@@" + json.dumps(payload, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
