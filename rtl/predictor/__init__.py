"""tian15's PC-based bypass predictor: prediction table and L1 tag/metadata unit."""

from rtl.predictor.l1_tag_unit import L1TagUnit
from rtl.predictor.prediction_table import PredictionTable

__all__ = ["L1TagUnit", "PredictionTable"]
