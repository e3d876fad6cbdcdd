"""golden/cache."""
