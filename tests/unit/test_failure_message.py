"""A blocking check that fails names its entity in the run output, not only in Dagster."""

from __future__ import annotations

import dagster as dg

from pipeline.runner import failure_message

SAID = "benchmarks: 'index' and 'x' share the page benchmarks/index.md"


@dg.asset(
    check_specs=[dg.AssetCheckSpec("one_page_per_entity", asset="pages", blocking=True)]
)
def pages():  # noqa: ANN201
    yield dg.Output(1)
    yield dg.AssetCheckResult(
        check_name="one_page_per_entity", passed=False, description=SAID
    )


@dg.asset(deps=[pages])
def published() -> int:
    return 2


def test_the_failed_blocking_check_is_said_with_what_it_names() -> None:
    # Entered, so Dagster's current definitions-state storage is this instance's and
    # not one a test before it left behind.
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize(
            [pages, published], instance=instance, raise_on_error=False
        )
        assert not result.success
        assert failure_message(instance, result.run_id) == (
            f"blocking check pages:one_page_per_entity failed: {SAID}"
        )
