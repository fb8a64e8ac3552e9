"""Dagster entry point: everything under ``pipeline/defs/`` is loaded automatically."""

import warnings
from pathlib import Path

import dagster as dg

# Output(data_version=...) is marked beta in Dagster 1.13; content-hash data versions
# are how unchanged releases cause no downstream work, so we accept it knowingly.
warnings.filterwarnings("ignore", category=dg.BetaWarning)


@dg.definitions
def defs() -> dg.Definitions:
    """All assets, checks, sensors and resources of the project."""
    return dg.load_from_defs_folder(path_within_project=Path(__file__).parent)
