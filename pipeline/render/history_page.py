"""The Accelerator histories page: every accelerator's lines across rounds.

It indexes the accelerator pages (``accelerator_pages``), whose paths the model
declares (``model.Model.accelerator_pages``), so it needs no page to run before it.
The layout is ``history_views``'.
"""

from __future__ import annotations

from pipeline.render.context import METHODOLOGY
from pipeline.render.history_views import render_history_page
from pipeline.render.model import Model
from pipeline.render.spec import Draft, PageSpec, Rendered


def render(model: Model) -> Rendered:
    """The Accelerator histories page, indexing the accelerator pages."""
    draft = Draft()
    # The accelerator pages stay out of the nav (see ``context.ENTITY_PAGES``).
    render_history_page(
        draft,
        model.releases,
        model.histories,
        model.rounds,
        METHODOLOGY,
        dict(model.accelerator_pages),
    )
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Accelerator histories page."""
    return [PageSpec("histories", render, {"model": model})]
