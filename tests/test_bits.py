"""The timing loop's bit helper (golden/gpu/bits.py)."""

import numba as nb
import numpy as np

from golden.gpu.bits import trailing_zeros


@nb.njit(cache=False)
def _all(xs):
    out = np.empty(xs.size, np.int64)
    for i in range(xs.size):
        out[i] = trailing_zeros(xs[i])
    return out


def test_trailing_zeros_is_the_lowest_set_bit():
    rng = np.random.default_rng(0)
    xs = np.concatenate([np.int64(1) << np.arange(63, dtype=np.int64), [np.int64(-(1 << 63))],
                         rng.integers(1, 1 << 62, 1000), -rng.integers(1, 1 << 62, 100)]).astype(np.int64)
    want = [(int(x) & -int(x)).bit_length() - 1 for x in xs]
    assert _all(xs).tolist() == want
    assert _all(np.zeros(1, np.int64))[0] == 64
