"""Design-space sweeps: a grid of simulations on Dask, a resumable results store, a tidy table, plots.

One concept per module:

* :mod:`~golden.experiments.sweep.fields`: ``FIELD=V1,V2`` with the config files' dotted names;
* :mod:`~golden.experiments.sweep.grid`: the points (workloads x scales x seeds x policies x
  timings x fields), validated, each keyed by a hash of what its result depends on;
* :mod:`~golden.experiments.sweep.code`: the code fingerprint in every key;
* :mod:`~golden.experiments.sweep.point`: one point on a worker (``golden.driver.simulate``);
* :mod:`~golden.experiments.sweep.metrics`: a result as a flat row of metrics;
* :mod:`~golden.experiments.sweep.store`: the results store (one JSON file per point);
* :mod:`~golden.experiments.sweep.engine`: the points on a Dask cluster, filed as they finish;
* :mod:`~golden.experiments.sweep.table`: CSV and Parquet;
* :mod:`~golden.experiments.sweep.plots`: a metric against a swept field.

``docs/sweep.md`` is the user's guide (``gpucache sweep``).
"""
