"""Whatever dies in the deployed stack is started again: the compose services' restart policy."""

from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]  # merge keys (<<) resolved


def test_every_long_running_service_restarts_and_the_migration_runs_once():
    restart = {name: service.get("restart", "no") for name, service in services().items()}

    assert restart.pop("migrate") == "no"  # a one-shot step: the others wait for it to end
    assert restart  # web, the workers, beat, PostgreSQL and Redis
    assert {"web", "worker-interactive", "worker-batch", "beat"} <= set(restart)
    assert all(policy in ("always", "unless-stopped") for policy in restart.values()), restart
