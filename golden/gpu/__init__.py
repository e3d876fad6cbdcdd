"""golden/gpu."""
