"""`connectworker spark`: the standalone worker whose tasks run as long-lived Spark tasks (the driver's
runtime, the Spark task runner, the session and its Python workers, the executors' checks).

May import: the runtime, config and plugins; never `spark.formats`.
"""
