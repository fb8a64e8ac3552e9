"""The MkDocs glue: the hooks ``mkdocs.yml`` loads and every patch of MkDocs internals.

``hooks.py`` (the generated pages in the nav, inert front matter, HTML fragments,
precompression) and ``cache.py`` (the page cache) are loaded by MkDocs from their file
paths (``hooks:`` in ``mkdocs.yml``); ``patches.py`` holds every replacement of a
MkDocs, Material or Markdown internal and refuses versions other than the pinned ones.
Nothing else in the pipeline imports this package: MkDocs runs it in its own process.
"""
