"""Benchmark harness: run the agent on a task suite and grade its deliverables."""
