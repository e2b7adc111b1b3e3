"""A pipeline of models and a decoder at N cameras: how each stage's streams, requests and threads share the device so
that the most cameras are served within the target's frame rate and latency (docs/usage.md, "A pipeline")."""
