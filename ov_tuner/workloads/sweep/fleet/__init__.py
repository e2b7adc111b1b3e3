"""The sweep on every target host of a Ray cluster (`ov-tuner fleet sweep`), one results file per host on the driver's
machine: `keeper` holds each host's results file on the driver's machine, `node` is the task that sweeps on a host,
`run` drives them all over ov_tuner.fleet's cluster, bundle and schedule. Ray is the optional extra `ov-tuner[fleet]`:
only the `fleet` commands import this package."""
