"""
The testbed: headless simulation, per-extension ablations and diffusion probes (issue #9).

`simulate.run_simulation(SimConfig(...))` runs a small world for some game days against the
current Django database and returns a report dict; `cli.main` (`omniira-simulate`) sets up a
throwaway database first and writes the report as JSON plus PNG plots. See docs/testbed.md.
"""
