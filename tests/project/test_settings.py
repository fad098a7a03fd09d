"""The demo project's configuration from the environment (README, "Configuration")."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from project.settings import database_from_url, env_bool


def test_sqlite_waits_for_the_write_lock_instead_of_failing():
    database = database_from_url("sqlite:////tmp/example.sqlite3")
    assert database["NAME"] == "/tmp/example.sqlite3"
    assert database["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert database["OPTIONS"]["timeout"] > 0
    assert "journal_mode=WAL" in database["OPTIONS"]["init_command"]


def test_postgresql_uses_a_connection_pool_not_persistent_connections():
    database = database_from_url("postgresql://app@db.example:5432/workspace")
    assert (database["HOST"], database["PORT"], database["NAME"], database["USER"]) == (
        "db.example",
        5432,
        "workspace",
        "app",
    )
    assert database["CONN_MAX_AGE"] == 0
    assert database["OPTIONS"]["pool"]["max_size"] >= 1


def test_postgresql_under_wsgi_keeps_a_connection_per_thread_checked_before_reuse():
    database = database_from_url("postgresql://app@db.example:5432/workspace", "persistent")
    assert database["CONN_MAX_AGE"] > 0
    assert database["CONN_HEALTH_CHECKS"] is True
    assert "pool" not in database["OPTIONS"]
    assert database["OPTIONS"]["connect_timeout"] > 0


def test_an_unknown_way_of_holding_connections_is_refused():
    with pytest.raises(ImproperlyConfigured, match="DATABASE_CONNECTIONS must be pool or persistent, not 'always'"):
        database_from_url("postgresql://app@db.example:5432/workspace", "always")


@pytest.mark.parametrize(
    "value, expected", [("1", True), ("true", True), ("True", True), ("0", False), ("false", False)]
)
def test_boolean_variables(monkeypatch, value, expected):
    monkeypatch.setenv("SOME_FLAG", value)
    assert env_bool("SOME_FLAG", not expected) is expected


def test_a_boolean_variable_that_is_neither_is_refused(monkeypatch):
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="SOME_FLAG must be 1/0 or true/false"):
        env_bool("SOME_FLAG", True)


def test_options_in_the_url_are_kept():
    database = database_from_url("postgresql://app@db.example:5432/workspace?sslmode=require&connect_timeout=3")
    assert database["OPTIONS"]["sslmode"] == "require"
    assert database["OPTIONS"]["connect_timeout"] == 3
    assert "pool" in database["OPTIONS"]
