"""The same sweep on every target host of a Ray cluster, one results file per host on the driver's machine.

`cluster` names the targets (pure), `bundle` carries the model to them, `keeper` holds each host's results
file on the driver's machine, `node` is the task that sweeps on a host, `run` drives them all. Only this
package imports Ray, and only the `fleet` command imports this package: Ray is the optional extra
`ov-tuner[fleet]`.
"""
