"""analytical_bench: benchmark harnesses for uac (analytical aggregate questions, LoCoMo)."""
