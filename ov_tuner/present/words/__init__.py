"""The words every workload's rendering shares: numbers and intervals (numbers.py), a box (box.py), the marks on
a figure (marks.py), what a command says as it starts (devices.py). Each workload's own words are in its
folder (workloads/NAME/present/)."""
