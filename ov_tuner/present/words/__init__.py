"""Every sentence ov-tuner shows, made from analysis' verdicts and figures; the only place outside the CLI that
names a flag in what it says. One module per kind of verdict; numbers.py formats the figures they share."""
