"""golden/policies."""
