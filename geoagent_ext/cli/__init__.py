"""The ``jupyter geoagent`` command line: batch runs, index builds, benchmarks."""
