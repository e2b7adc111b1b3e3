"""The engine every workload runs on (pure: it never imports the runtime): the one driver (search, rounds, walks),
the one rounds function, the one capacity walk and the camera search on it."""
