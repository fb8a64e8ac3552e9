"""Vendor claims checked against the published results: registry, evaluation, verdicts.

Press releases summarise MLPerf rounds as "about 1.5x faster", "up to 45% more" or
"over 96% scaling efficiency". This package turns such statements into checks against
the same derived tables the site publishes, so a reader can see which reading of the
data a claim holds in, which published results it rests on and what it leaves out.

What belongs here (Dagster-free, PUDL style): evaluating each claim of the committed
registry (``pipeline/registry/claims.toml``, loaded and validated by
``pipeline.registry.claims``) against the results table and the three pair tables of
``pipeline.analysis``, and summarising one verdict per claim. What does not: the asset
that runs it (``pipeline/defs``) and the page that shows it
(``pipeline/render/claims_page.py``).

Modules: ``readings`` (the readings of each kind and the queries that find a
reading's published pairs or results), ``evaluation`` (rounding rules, verdicts per
reading and per claim) and ``explanation`` (the reasons and caveats a reader sees, and
why nothing matched).

Readings. A claim rarely says at which identity level it was measured, so every
reading the analysis tables offer is evaluated and labelled (``READINGS``):

* software gains: ``system`` (same submitter and platform), ``hardware`` (same
  accelerator and count, best of each release), ``accelerator (normalised per
  accelerator)`` (any scale, per accelerator);
* generation ratios: ``same_submitter`` and ``best_of_any`` at equal counts, and both
  again normalised per accelerator;
* scaling efficiency and absolute results: ``same_submitter`` and ``best_of_any``.

Readings that keep identity (``system``, ``same_submitter``) apply the claim's
``submitters`` and ``systems``; best-of readings only apply its accelerators, counts
and benchmark, and say so in a caveat when the best result is someone else's. A claim
can restrict itself to one identity level; ``"any"`` evaluates them all.

Figures and rounding. A figure stated to N decimals ("1.5x" is N = 1) is consistent
with a computed value that rounds to it (half to even, Polars' default, so 1.45 rounds
to 1.4) or truncates to it; the reason says which. "about" accepts rounding only;
"up to" and "exactly" accept either; "at least" and "over" need computed >= figure.
"up to" is checked on the maximum over every matching pair (scenarios, systems);
"at least"/"over" on the minimum; "about"/"exactly" need every matching pair to agree.

Verdicts per reading: ``consistent``, ``inconsistent``, or ``not reproducible`` (no
published pair or result matches; the reason names the first missing piece, e.g. "no
result at that scale"), and a grade: *like-for-like*, or *loose* when the matches mix
sizes (per accelerator), submitters (a best-of reading) or weight precisions, listed in
``mixes``. A claim is consistent only if a like-for-like reading is; "holds only in a
loose reading" if only a loose one is (the verdict names it and what it mixes);
inconsistent if some reading is reproducible and none is consistent; else not
reproducible. Strict by default: a number no like-for-like comparison supports never
gets the green tick.
"""

from pipeline.claims.evaluation import (
    EVALUATION_SCHEMA,
    VERDICT_SCHEMA,
    VERDICTS,
    claim_verdicts,
    evaluate_claims,
)
from pipeline.claims.readings import (
    END_SCHEMA,
    PER_ACCELERATOR,
    READINGS,
    Reading,
    readings_for,
)

__all__ = [
    "END_SCHEMA",
    "EVALUATION_SCHEMA",
    "PER_ACCELERATOR",
    "READINGS",
    "VERDICTS",
    "VERDICT_SCHEMA",
    "Reading",
    "claim_verdicts",
    "evaluate_claims",
    "readings_for",
]
