"""rtl/common."""
