"""Unit-test settings.

A module that builds a whole site (render_site, mkdocs), runs the CLI in a
subprocess or holds real locks marks itself ``pytestmark = pytest.mark.slow``, so a
renamed file keeps its mark; ``make test-fast`` runs the rest in well under 30 s.
"""
