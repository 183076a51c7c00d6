"""The agent: a run's state machine, its planner, solvers, repairs and events.

It sits below ``runs`` and ``services`` and above ``kernel``, ``rag``, ``llm`` and ``contract``
(the layer contract in pyproject.toml); a regular package, so the import rules can name it.
"""
