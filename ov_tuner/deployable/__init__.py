"""What every workload that compiles a model shares, below them all: the IR a precision runs (`irs`), the
configurations a device's precisions give (`configs`), and what a sweep's results file deploys (`deployed`), which
capacity, neighbours, the jobs and a pipeline's stages run. A sweep's results file is what they read, so whose it is
(SWEEP_WRITER) is known here, and the sweep registers with it."""

from ov_tuner.store.tables import Writer

# A sweep's results file, as the sweep registers it (ov_tuner.workloads.sweep.registration); the jobs on its answer
# write into it.
SWEEP_WRITER = Writer("sweep", "a sweep's")
