"""rtl/ciao."""
