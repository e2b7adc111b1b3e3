"""An LLM served by OpenVINO GenAI: the users or request rate it serves within a TTFT and TPOT budget, and the
scheduler, KV cache and weight settings that get there (docs/llm.md)."""
