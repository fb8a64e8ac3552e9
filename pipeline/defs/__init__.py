"""Dagster wiring only.

What belongs here: asset, check, sensor, schedule and resource definitions that call the
plain modules (``pipeline.fetch``, ``pipeline.transform``, ``pipeline.analysis``,
``pipeline.render``). What does not: parsing, normalisation, analytics or page logic;
those stay testable without Dagster.
"""
