"""
What other capabilities and the shell call in llm beside the plain client and guards: the
background job runner (`run_job`) and the usage rows it and a turn record.
"""

from omniira_evennia.llm.jobs import Job, run_job
from omniira_evennia.llm.usage import record_usage, seed_budget, spend_of_day

__all__ = ["Job", "record_usage", "run_job", "seed_budget", "spend_of_day"]
