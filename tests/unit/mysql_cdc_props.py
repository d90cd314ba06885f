"""The MySQL CDC connector's props the unit tests share: a server that is never reached."""

MYSQL_PROPS = {
    "database.hostname": "db.example",
    "database.port": "3306",
    "database.user": "cdc",
    "database.server.id": "5400",
    "topic.prefix": "shop",
    "schema.history.internal.kafka.topic": "history.shop",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
}
