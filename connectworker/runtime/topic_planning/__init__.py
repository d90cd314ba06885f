"""What topic creation would do, without running the worker: the dry run of `connectworker plan` (a
connector and its first task dry-started, touching nothing outside the process; the task's
`settings_for_new_topic` asked, transforms applied) and drift checks of the topics the worker created.

May import: api, config, topics, transforms, converters (to read sample records) and runtime's `tasks`,
`topic_creation`, `clients` and `connector_context`; never the worker, runners or the herder.
"""
