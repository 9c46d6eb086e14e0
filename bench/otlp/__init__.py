"""OTLP trace ingest: LearnPortal's /v1/traces against its own /api/turns/ and Arize Phoenix."""
