"""Read one result of the MLPerf endpoints harness: its summary and its accuracy.

What belongs here: turning the bytes of ``performance/result_summary.json`` and
``accuracy/accuracy_results.json`` into typed values, every value checked at this
boundary. What does not: deciding which number is the result or whether the run is
valid (``pipeline.extract.raw_tree`` does that in Polars, by ``endpoints.toml``).

The layout (``../shared/mlperf-mirror-endpoints/README.md``): top-level ``qps``,
``tps``, ``n_samples_completed``, ``n_samples_failed``, ``duration_ns``,
``legacy_loadgen_window_duration_ns``, ``state``, ``complete``, and the
distributions ``ttft`` and ``tpot`` (nanoseconds; empty objects in Offline) and
``latency`` (end to end, what qwen3-vl-235b-a22b's limits bound), each
with ``percentiles`` and ``early_stopping_percentiles`` keyed by a percentile as text
("99.0"). A file that is not such a document (invalid JSON, a wrong type, a number
that is not finite) raises :class:`EndpointsFileError` naming the field.
"""

from __future__ import annotations

import json
import math

from pipeline.extract.json_values import OutOfRange, duplicate_problem, json_object

#: The percentiles kept of each distribution, besides the early-stopping estimate.
PERCENTILES = (50.0, 90.0, 99.0)
DISTRIBUTIONS = ("ttft", "tpot", "latency")


class EndpointsFileError(ValueError):
    """A result_summary.json or accuracy_results.json that cannot be read."""


def _document(content: bytes, where: str) -> dict:
    document = json_object(content, where, EndpointsFileError)
    repeated = duplicate_problem(document, "the file")
    if repeated:
        raise EndpointsFileError(f"{where}: {repeated}")
    return document


def _kind(value: object) -> str:
    return {bool: "a boolean", list: "a list", dict: "an object", str: "text"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _number(value: object, name: str, where: str) -> float | None:
    """A finite number, or None when absent or null."""
    if value is None:
        return None
    if isinstance(value, OutOfRange):
        raise EndpointsFileError(f'{where}: "{name}" is out of the 64-bit range')
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EndpointsFileError(
            f'{where}: "{name}": expected a number, got {_kind(value)}'
        )
    if not math.isfinite(value):
        raise EndpointsFileError(
            f'{where}: "{name}" is not finite: {json.dumps(value)}'
        )
    return float(value)


def _at(table: object, percentile: float, name: str, where: str) -> float | None:
    """The value of a percentiles table at ``percentile`` ("99" and "99.0" are one)."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise EndpointsFileError(
            f'{where}: "{name}": expected an object, got {_kind(table)}'
        )
    for key, value in table.items():
        try:
            same = abs(float(key) - percentile) < 1e-9
        except ValueError:
            continue
        if same:
            return _number(value, f'{name}."{key}"', where)
    return None


def parse_result_summary(
    content: bytes, *, where: str, percentile: float
) -> dict[str, object]:
    """The values of one ``result_summary.json`` that the result and its latency need.

    Keys: ``ep_complete``, ``ep_state``, ``ep_failed``, ``ep_completed``,
    ``ep_qps``, ``ep_tps``, ``ep_duration_ns``, ``ep_window_ns`` and, for ``ttft``
    and ``tpot``, ``<d>_p50_ns``, ``<d>_p90_ns``, ``<d>_p99_ns`` and ``<d>_es_ns``
    (the early-stopping estimate at ``percentile``); None where the file has none.

    Raises:
        EndpointsFileError: not a readable result_summary.json (named field).
    """
    document = _document(content, where)
    complete = document.get("complete")
    if complete is not None and not isinstance(complete, bool):
        raise EndpointsFileError(
            f'{where}: "complete": expected true or false, got {_kind(complete)}'
        )
    state = document.get("state")
    if state is not None and not isinstance(state, str):
        raise EndpointsFileError(f'{where}: "state": expected text, got {_kind(state)}')
    counts = {}
    for name in ("n_samples_failed", "n_samples_completed"):
        value = document.get(name)
        if value is not None and (isinstance(value, bool) or type(value) is not int):
            raise EndpointsFileError(
                f'{where}: "{name}": expected a whole number, got {_kind(value)} '
                f"{json.dumps(value) if isinstance(value, float) else ''}".rstrip()
            )
        counts[name] = value
    row: dict[str, object] = {
        "ep_complete": complete,
        "ep_state": state,
        "ep_failed": counts["n_samples_failed"],
        "ep_completed": counts["n_samples_completed"],
        "ep_qps": _number(document.get("qps"), "qps", where),
        "ep_tps": _number(document.get("tps"), "tps", where),
        "ep_duration_ns": _number(document.get("duration_ns"), "duration_ns", where),
        "ep_window_ns": _number(
            document.get("legacy_loadgen_window_duration_ns"),
            "legacy_loadgen_window_duration_ns",
            where,
        ),
    }
    for dist in DISTRIBUTIONS:
        table = document.get(dist) or {}
        if not isinstance(table, dict):
            raise EndpointsFileError(
                f'{where}: "{dist}": expected an object, got {_kind(table)}'
            )
        for p in PERCENTILES:
            row[f"{dist}_p{p:g}_ns"] = _at(
                table.get("percentiles"), p, f"{dist}.percentiles", where
            )
        row[f"{dist}_es_ns"] = _at(
            table.get("early_stopping_percentiles"),
            percentile,
            f"{dist}.early_stopping_percentiles",
            where,
        )
    return row


def parse_accuracy(content: bytes, *, where: str) -> float:
    """``average_accuracy`` of one ``accuracy_results.json``.

    Raises:
        EndpointsFileError: unreadable, or no finite ``average_accuracy``.
    """
    document = _document(content, where)
    value = _number(document.get("average_accuracy"), "average_accuracy", where)
    if value is None:
        raise EndpointsFileError(f'{where}: no "average_accuracy"')
    return value
