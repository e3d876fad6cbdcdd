"""rtl/predictor."""
