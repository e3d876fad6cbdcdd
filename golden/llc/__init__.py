"""drp16's CPU-GPU last-level cache: streams, the LLC model with inclusion, and its driver."""

from golden.llc.model import LLC_CONFIG, LLC_TRACE_DTYPE, LLCModel, check_trace
from golden.llc.streams import N_STREAMS, STREAM_NAMES, stream_id

__all__ = ["LLC_CONFIG", "LLC_TRACE_DTYPE", "LLCModel", "N_STREAMS", "STREAM_NAMES", "check_trace",
           "stream_id"]
