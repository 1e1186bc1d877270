"""The LLM: the OpenAI-compatible client, budgets and breakers, background jobs, usage rows."""
