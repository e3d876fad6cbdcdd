"""Each paper's comparison, run on the golden model: one module per paper."""
