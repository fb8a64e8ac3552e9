"""Benchmarks of the pipeline: kept outside the installed ``pipeline`` package.

``make bench`` runs ``python -m benchmarks.bench``; see that module.
"""
