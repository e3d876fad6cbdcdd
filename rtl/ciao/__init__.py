"""ciao18's units: victim tag array, interference list, pair list with V/I flags, IRS cut-off unit and the
shared-memory address translation unit (``docs/hardware.md``)."""

from rtl.ciao.interference import InterferenceList
from rtl.ciao.irs import IrsTest, IrsUnit
from rtl.ciao.pair_list import PairList
from rtl.ciao.smem import SmemTranslate
from rtl.ciao.vta import Vta

__all__ = ["InterferenceList", "IrsTest", "IrsUnit", "PairList", "SmemTranslate", "Vta"]
