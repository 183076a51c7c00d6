"""Grade an agent's deliverables: with the task's own ``grade.py`` when it has one, else generically.

    report = grade_task(task_dir, workdir)   # task_dir: task.json [+ grade.py] + reference/[solution/]outputs/
    report.score, report.passed, report.gates, report.subchecks, report.grader

A task's ``grade.py`` (GeoAgentBench) runs in a child process (``official``). The generic
grader below scores like it: a failed gate (``exists``, ``parses``, ``keys``, ``layer``,
``crs``, ``columns``) scores 0, else the share of subchecks passed.

Graders are general: what to compare comes from task.json (``expected_outputs``, the
instruction's wording) and from the reference files; tolerances live in ``tolerances``.

Subchecks, named ``<output>:<check>`` (``<output>[<layer>]:<check>`` per GeoPackage layer):
- every output: ``exists``, ``parses`` (strictly as the expected format);
- JSON: ``keys`` (same top-level keys), ``value:<key>`` per top-level key (recursive,
  numeric tolerance; coordinates under bbox-like keys compare absolutely);
- tables and layers: ``layer`` (multi-layer files), ``crs``, ``geometry_type``,
  ``geometry_valid`` (when the reference's geometries all are), ``columns`` (required ones:
  named in the instruction or carried from an input), ``dtypes`` (type families; exact
  width/unit when the instruction names it), ``row_count``, ``id_set`` (when an id column
  is found), ``geometry`` (values within tolerance, rows paired by id, else by order or
  nearest geometry), ``geometry_structure`` (parts and holes per feature, lines/polygons),
  ``ring_orientation`` (GeoJSON whose reference follows RFC 7946), ``attributes`` (values
  within tolerance), ``sort_order`` (when the instruction asks to sort or rank).
The checklist depends only on the task, so every agent is scored on the same denominator.
"""

from .core import GradingError, grade_generic, grade_output, grade_task
from .models import GradeReport, Subcheck

__all__ = ["GradeReport", "GradingError", "Subcheck", "grade_generic", "grade_output", "grade_task"]
