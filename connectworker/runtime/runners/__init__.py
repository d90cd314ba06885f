"""Where tasks run. `Worker` decides which tasks exist and in which state; a `TaskRunner` runs them
and hands back a `TaskHandle` to pause, resume, stop and watch each one. `ThreadTaskRunner` runs each
task on a thread of the worker's process (standalone).

May import: runtime's `tasks` and `status`; never the worker or the herder.
"""
