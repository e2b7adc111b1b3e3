"""Any workload's command on every target host of a Ray cluster, one results file per host on the driver's machine.

`cluster` names the targets (pure), `connect` joins the cluster, `bundle` carries a model to them, `schedule` places
and waits for the tasks, `command` and `command_node` run a workload's command on each host (the sweep's own fleet
run, with its progress relayed, is ov_tuner.workloads.sweep.fleet). Only the fleet's modules import Ray, and only the
`fleet` commands import them: Ray is the optional extra `ov-tuner[fleet]`.
"""
