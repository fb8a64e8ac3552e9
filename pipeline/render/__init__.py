"""Website rendering: canonical and derived tables to Markdown pages, charts and files.

What belongs here: pure functions from Polars frames (``SiteData``) to the files MkDocs
builds into the website, plus the small MkDocs hook that puts generated pages in the
navigation. What does not: Dagster (``pipeline/defs/`` wraps ``render_site`` in an
asset), analysis (``pipeline/analysis/`` computes the ratios this package only shows),
and running ``mkdocs build`` itself.

Every upstream string reaches a page through ``escape.escape`` and every upstream URL
through ``escape.safe_url``: result records are third-party input.
"""
