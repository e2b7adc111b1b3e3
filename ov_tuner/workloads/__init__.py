"""ov-tuner's own workloads, each a folder laid out as a plug-in's package: the sweep of one model (with its parts:
capacity under camera load, neighbours, a soak, a cold start, a profile), a pipeline of models and a decoder, an LLM
served by GenAI. Each holds its registration, its command, its records, its trial, its search, its answer and its job,
and in its present/ its words, figures and forms; none imports another."""
