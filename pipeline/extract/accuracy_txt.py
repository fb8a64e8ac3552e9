"""Read one raw-tree ``accuracy/accuracy.txt`` the way the round's checker reads it.

This is a trust boundary: the file is upstream text of any size and content. The
value comes out as the checker's summary writes it (``"F1: 90.874"``: metric, colon,
the matched number as written); anything that keeps it from being read (too big, not
text, no line matching, a model the round's table does not name, a match that is no
number) is an ``AccuracyTextError`` whose message says why, never a crash. The
patterns and the model table are registry data (``pipeline/registry/accuracy.toml``).
"""

from __future__ import annotations

import math
import re

from pipeline.registry.accuracy import AccuracyRule

#: Where a result's accuracy file sits in its scenario folder.
ACCURACY_TXT = "accuracy/accuracy.txt"
#: The largest accuracy.txt read (a checker's output is a few kB; upstream's biggest
#: hold per-class tables of tens of kB). Anything larger is refused with its size.
MAX_BYTES = 1_000_000
#: The checker's hash line (``check_accuracy_dir``): a per_model reading stops once
#: it and the value have been seen.
_HASH = re.compile(r"^hash=([\w\d]+)$")


class AccuracyTextError(ValueError):
    """An accuracy.txt that gives no accuracy; the message names the file and why."""


def _first_any(lines: list[str], rule: AccuracyRule) -> tuple[str, str] | None:
    for line in lines:
        for metric, pattern in rule.patterns:
            match = pattern.match(line)
            if match:
                return metric, match.group(1)
    return None


def _per_model(lines: list[str], pattern: re.Pattern[str]) -> str | None:
    value: str | None = None
    seen_hash = False
    for line in lines:
        match = pattern.match(line)
        if match:
            value = match.group(1)
        if _HASH.match(line):
            seen_hash = True
        if seen_hash and value:
            break
    return value


def parse_accuracy_txt(
    content: bytes, *, rule: AccuracyRule, model: str, where: str
) -> str:
    """The accuracy ``content`` states, as ``"<metric>: <value>"``.

    Args:
        content: the file's bytes.
        rule: the round's reading (``accuracy.accuracy_rule_for``).
        model: the folder's model name (or its model_mapping.json target), which a
            per-model reading maps to a metric as the checker does.
        where: names the file in messages ("v1.0 closed/.../accuracy.txt").

    Raises:
        AccuracyTextError: why no accuracy could be read.
    """
    if len(content) > MAX_BYTES:
        raise AccuracyTextError(
            f"{where}: {len(content):,} bytes, more than the {MAX_BYTES:,} read"
        )
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AccuracyTextError(f"{where}: not UTF-8 text ({exc.reason})") from None
    lines = text.splitlines(keepends=True)
    if rule.reading == "any":
        found = _first_any(lines, rule)
        if found is None:
            names = ", ".join(m for m, _ in rule.patterns)
            raise AccuracyTextError(f"{where}: no line matches the {names} patterns")
        metric, value = found
    else:
        metric_of = rule.metric(model)
        if metric_of is None:
            raise AccuracyTextError(
                f"{where}: the {rule.release} checker's table names no accuracy "
                f"metric for model '{model[:80]}'"
            )
        pattern = dict(rule.patterns)[metric_of]
        matched = _per_model(lines, pattern)
        if matched is None:
            raise AccuracyTextError(
                f"{where}: no line matches the {metric_of} pattern of "
                f"'{rule.model(model)[:80]}'"
            )
        metric, value = metric_of, matched
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise AccuracyTextError(
            f"{where}: the {metric} value '{value[:40]}' is not a number"
        )
    return f"{metric}: {value}"
