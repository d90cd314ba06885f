"""Debezium's Single Message Transforms, by Debezium's class names and keys.

- `io.debezium.transforms.ExtractNewRecordState` (unwrap.py): a change event's row state instead of its
  envelope, with Debezium's handling of deletes, tombstones and truncates.
- `io.debezium.transforms.ExtractChangedRecordState` (changed_fields.py): headers naming the columns an
  update changed and those it left.
- `io.debezium.transforms.outbox.EventRouter` (event_router.py): the outbox pattern, each inserted outbox
  row one event on the topic of its aggregate type.
- `io.debezium.transforms.ByLogicalTableRouter` and `ToLogicalTopicRouter` (logical_table_router.py):
  sharded tables' events onto one topic, keys made unique across the shards.

They work on the change events of the CDC connectors here (connectors/postgres_cdc, connectors/mysql_cdc),
whose value schema is named `<topic>.Envelope` as Debezium's are, and pass any other record unchanged.
"""
