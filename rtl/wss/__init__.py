"""rtl/wss."""
