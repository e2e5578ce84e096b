"""The credential the `secret_env` fixture (tests/conftest.py) puts in the environment: characters a
header or a query must carry unchanged."""

SECRET = "s3cr3t-T0ken/with+chars="
