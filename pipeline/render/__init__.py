"""Website rendering: canonical and derived tables to Markdown pages, charts and files.

What belongs here: pure functions from Polars frames (``SiteData``) to the files MkDocs
builds into the website, plus the MkDocs glue MkDocs loads in its own process
(``mkdocs/``: the hooks and every patch of MkDocs internals). What does not: Dagster
(``pipeline/defs/`` wraps ``render_site`` in an asset), analysis
(``pipeline/analysis/`` computes the ratios this package only shows), writing files
(``pipeline.files``), snapshot provenance (``pipeline.transform.provenance``) and
running ``mkdocs build`` itself (``pipeline.publish``).

Result records are third-party input. Pages never escape or mark text safe
themselves: they write through the ``safe`` layer (``safe.Md`` templates and
``safe.MdExpr`` cells escape every value they did not build, ``safe.link`` and
``link_md`` check URLs) and ``tables``, which escapes every column that is not a
typed cell. Only ``escape``, ``safe`` and ``tables`` call the escape rules;
``tests/unit/render/test_safe.py`` enforces it over every module of this package.
"""
