"""Kafka Connect's REST API for a standalone worker, served with FastAPI on uvicorn (docs/rest.md).

`server` starts it next to a running worker; `app` assembles the routes (`routes_*`) over the
`herder`, which applies and persists changes; `models` are the JSON shapes, `views` build them from
the worker's state with `secrets` hidden.
"""
