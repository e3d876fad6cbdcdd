"""golden/units."""
