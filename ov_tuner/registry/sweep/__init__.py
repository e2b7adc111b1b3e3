"""The sweep's registration (registration.py, named by its entry point). Its words, report and figures are still
present/'s own modules."""
