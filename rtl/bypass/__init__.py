"""rtl/bypass."""
