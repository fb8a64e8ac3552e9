"""The Performance page: what the pipeline costs, from ``make bench`` results."""

from __future__ import annotations

PAGE = "performance.md"


def render_performance_page(results: dict | None) -> str:
    """Markdown of the Performance page; says how to measure when nothing is."""
    if not results:
        return (
            "# Performance\n\nNo benchmark results yet: run `make bench` to measure "
            "the cold build, a no-op rerun, an incremental release and the analytics "
            "at 10x and 100x scale. The results appear here on the next site build.\n"
        )
    return "# Performance\n\n```json\n" + str(results) + "\n```\n"
