import polars as pl

from pipeline.analysis import pairs as analysed
from pipeline.analysis.pairing import (
    PAIR_SCHEMA,
    check_no_duplicate_pairs,
    check_no_self_pairs,
    check_ratios_finite_positive,
    check_results_exist,
)
from tests.unit.analysis.helpers import frame, row

RESULTS = frame(
    row(release="v5.1", result_key="a", result_value=100.0),
    row(release="v6.0", result_key="b", result_value=150.0),
    row(release="v6.1", result_key="c", result_value=160.0),
)


def pairs() -> pl.DataFrame:
    out = analysed(RESULTS, "software_gain")
    return out.filter(pl.col("identity_level") == "system")


def test_good_pairs_pass_every_check():
    good = pairs()
    assert good.height == 3
    for outcome in (
        check_ratios_finite_positive(good),
        check_no_self_pairs(good),
        check_results_exist(good, RESULTS),
        check_no_duplicate_pairs(good.lazy()),
    ):
        assert outcome.passed, outcome.message
        assert outcome.metadata["pairs"] == 3
        assert outcome.metadata["offending"] == 0
    assert check_ratios_finite_positive(good).message == (
        "all 3 pairs have a finite, positive ratio"
    )


def test_bad_ratios_fail_with_the_pairs_named():
    bad = pairs().with_columns(
        ratio=pl.when(pl.col("result_key_old") == "a")
        .then(pl.lit(float("inf")))
        .otherwise(pl.col("ratio"))
    )
    outcome = check_ratios_finite_positive(bad)
    assert not outcome.passed
    assert outcome.message == (
        "2 of 3 pairs have a ratio or efficiency that is not finite and positive: "
        "software_gain/system llama2-70b-99 Offline closed: a -> b; "
        "software_gain/system llama2-70b-99 Offline closed: a -> c"
    )
    assert outcome.metadata["offending"] == 2


def test_scaling_efficiency_is_checked_too():
    bad = pairs().head(1).with_columns(kind=pl.lit("scaling"), efficiency=pl.lit(-1.0))
    outcome = check_ratios_finite_positive(bad)
    assert not outcome.passed
    assert outcome.metadata["offending"] == 1


def test_self_pairs_fail():
    bad = pairs().with_columns(
        result_key_new=pl.when(pl.col("result_key_old") == "b")
        .then(pl.lit("b"))
        .otherwise(pl.col("result_key_new")),
        release_new=pl.when(pl.col("result_key_new") == "b")
        .then(pl.lit("v5.1"))
        .otherwise(pl.col("release_new")),
    )
    outcome = check_no_self_pairs(bad)
    assert not outcome.passed
    assert outcome.message == (
        "2 of 3 pairs are self-pairs: "
        "software_gain/system llama2-70b-99 Offline closed: a -> b; "
        "software_gain/system llama2-70b-99 Offline closed: b -> b"
    )


def test_pairs_citing_missing_results_fail():
    outcome = check_results_exist(pairs(), RESULTS.filter(pl.col("result_key") != "c"))
    assert not outcome.passed
    assert outcome.message == (
        "2 of 3 pairs cite 1 result key(s) missing from the results table: c"
    )
    assert outcome.metadata["missing_result_keys"] == ["c"]


def test_duplicate_pairs_fail():
    good = pairs()
    outcome = check_no_duplicate_pairs(pl.concat([good, good.head(1)]))
    assert not outcome.passed
    assert outcome.message == (
        "1 pair(s) appear more than once: software_gain/system a -> b (2 copies)"
    )


def test_checks_accept_an_empty_table():
    empty = pl.DataFrame(schema=PAIR_SCHEMA)
    assert check_ratios_finite_positive(empty).passed
    assert check_no_self_pairs(empty).passed
    assert check_results_exist(empty, RESULTS).passed
    assert check_no_duplicate_pairs(empty).passed
