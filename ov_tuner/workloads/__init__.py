"""Every workload the engine tunes, each in a folder of its own: the sweep of one model, capacity under camera load,
neighbours, a pipeline of models and a decoder, an LLM served by GenAI. Each holds its records, its trial, its search,
its answer and its job; its words live in present/words."""
