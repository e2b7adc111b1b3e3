"""The one door to OpenVINO: devices, reading, reshaping, compiling, and where results were measured."""
