"""What every command shares, ov-tuner's own and a plug-in workload's: the one Typer app, its consoles, exit codes and
option types, the one-line error boundary and Ctrl-C's stops (app.py); the flags read into values (flags.py); each
input said as its flag (inputs.py); renamed flags kept working (renamed.py)."""
