"""drp16's working-set-sample cache (rtl.wss.Wss)."""

from rtl.wss.wss import Wss, WssAccess, WssResponse

__all__ = ["Wss", "WssAccess", "WssResponse"]
