"""golden/workloads."""
