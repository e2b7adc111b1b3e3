"""Statistics every layer needs: estimates of a point's FPS, paired ratios with intervals, and the tests that decide
"clearly worse" and "within the tie margin". Pure: no OpenVINO."""
